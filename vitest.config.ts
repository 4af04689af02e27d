import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
