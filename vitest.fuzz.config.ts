import { defineConfig } from 'vitest/config';

/**
 * `npm run test:fuzz`: the full fuzzing run (FUZZ_RUNS requests, 20,000 by default, from FUZZ_SEED or
 * a new seed) on the embedded database, and again on PostgreSQL when DATABASE_URL is set.
 */
const engines = ['embedded', ...(process.env.DATABASE_URL ? ['postgres'] : [])];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30 * 60_000,
    hookTimeout: 120_000,
    // The migrated embedded database each app starts from a copy of (see the file).
    globalSetup: ['test/helpers/embedded-template.ts'],
    projects: engines.map((engine) => ({
      extends: true,
      test: { name: `fuzz-${engine}`, env: { TEST_DB: engine }, include: ['test/fuzz/**/*.fuzz.ts'] },
    })),
  },
});
