import { defineConfig } from 'vitest/config';

/**
 * Tests in tiers, by folder:
 * - test/unit: no server, no child process (test/setup/unit-guard.ts refuses both); `npm run test:unit`.
 * - test/integration: loopback servers, the fake Slack and Discord, the simulator, PostgreSQL.
 * - test/e2e: whole polbot processes (the CLI, replicas killed mid-delivery, shards).
 * - test/deploy: needs software the machine image lacks (nginx for the compose topology);
 *   `npm run test:deploy`, which .ci/run installs for. `npm test` runs the first three.
 *
 * The fault matrix judges hundreds of answers against Slack's and Discord's wall-clock limits (an
 * acknowledgement or deferral within 3 s, an answer within 6 s). Run beside the heaviest files it
 * lost cases to CPU starvation on 2 cores, so it runs last, on its own.
 */
const DEADLINES = ['test/integration/faults/matrix.test.ts'];
const POSTGRES = ['test/setup/postgres.ts'];

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
    // Every test file: no secret in any log line or any payload the fake platforms received.
    setupFiles: ['test/setup/secret-watch.ts'],
    projects: [
      // `include` lives in each project: a project extending the root would add its list to the root's.
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: ['test/setup/unit-guard.ts'], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: DEADLINES,
          globalSetup: POSTGRES,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'deadlines', include: DEADLINES, globalSetup: POSTGRES, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'deploy', include: ['test/deploy/**/*.test.ts'], globalSetup: POSTGRES, sequence: { groupOrder: 2 } } },
    ],
  },
});
