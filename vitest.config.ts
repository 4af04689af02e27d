import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real servers on loopback; a generous timeout covers slow CI machines
    // without hiding hangs (every server-side deadline in the suite is far shorter).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/setup/postgres.ts'],
    // Every test file: no secret in any log line or any payload the fake platforms received.
    setupFiles: ['test/setup/secret-watch.ts'],
  },
});
