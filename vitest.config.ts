import { defineConfig } from 'vitest/config';

/**
 * The fault matrix judges hundreds of answers against Slack's and Discord's wall-clock limits (an
 * acknowledgement or deferral within 3 s, an answer within 6 s). Run beside the heaviest files (the
 * compose test starts PostgreSQL, two polbot processes and nginx), it lost cases to CPU starvation on
 * 2 cores, so it runs last, on its own.
 */
const DEADLINES = ['test/faults/matrix.test.ts'];

export default defineConfig({
  test: {
    // Tests start real servers on loopback; a generous timeout covers slow CI machines
    // without hiding hangs (every server-side deadline in the suite is far shorter).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Much of the suite waits on loopback servers and child processes rather than computing, so
    // two forks keep two cores busy: on 2 cores the suite took 464 s with the default (one fork
    // there) and 285 s with two.
    maxWorkers: 2,
    globalSetup: ['test/setup/postgres.ts'],
    // Every test file: no secret in any log line or any payload the fake platforms received.
    setupFiles: ['test/setup/secret-watch.ts'],
    projects: [
      // `include` lives in each project: a project extending the root would add its list to the root's.
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: DEADLINES, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'deadlines', include: DEADLINES, sequence: { groupOrder: 1 } } },
    ],
  },
});
