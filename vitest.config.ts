import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suite runs on the embedded database always, and again on PostgreSQL (with Redis when
 * REDIS_URL is set) when DATABASE_URL is set. Each test file builds its own fresh database.
 */
const engines = ['embedded', ...(process.env.DATABASE_URL ? ['postgres'] : [])];

/**
 * Files whose outcome cannot depend on the engine under test run in the embedded project only:
 * pure unit tests (no database at all), the browser smoke test (no database), the embedded data
 * directory's lock (always PGlite, whatever the project) and the dashboard's pages in a browser
 * (the API under them is tested on both engines). The files other than unit tests say so at their top.
 */
const ENGINE_INDEPENDENT = [
  'test/**/*.unit.test.ts',
  'test/app/browser-smoke.test.ts',
  'test/db/data-dir-lock.test.ts',
  'test/modules/dashboard/dashboard-browser.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The banner bundle is built fresh from banner/ before the tests that serve it, the dashboard
    // for the browser tests when it is missing or stale, the migrated embedded database that each
    // test file's app starts from a copy of, and the bundles that tests run as child processes
    // (see the files).
    globalSetup: [
      'test/helpers/banner-bundle.ts',
      'test/helpers/web-build.ts',
      'test/helpers/embedded-template.ts',
      'test/helpers/built-entries.ts',
    ],
    projects: engines.map((engine) => ({
      extends: true,
      test: {
        name: engine,
        env: { TEST_DB: engine },
        // Two embedded files at a time (Vitest's default on two cores is one worker in all): they
        // share nothing but the machine. Then the PostgreSQL files one at a time: there a schema
        // dropped by one file's close breaks the migrator's catalog introspection in another
        // ("relation test_….account_visitors does not exist", seen with two files at a time).
        ...(engine === 'embedded' ? { maxWorkers: 2 } : { maxWorkers: 1, sequence: { groupOrder: 1 } }),
        include: ['test/**/*.test.ts'],
        exclude: engine === 'embedded' ? configDefaults.exclude : [...configDefaults.exclude, ...ENGINE_INDEPENDENT],
      },
    })),
  },
});
