import { existsSync } from 'node:fs';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The suite runs on the embedded database always, and again on PostgreSQL (with Redis when
 * REDIS_URL is set) when DATABASE_URL is set. Each test file builds its own fresh database.
 */
const engines = ['embedded', ...(process.env.DATABASE_URL ? ['postgres'] : [])];

/**
 * The consent, scan, retention and visit paths again through a real PgBouncer in transaction mode
 * (test/helpers/pgbouncer.ts): the `pgbouncer` project, with DATABASE_URL set and PgBouncer installed
 * (CI installs it). Each file's app has a database of its own behind the pooler.
 */
const THROUGH_PGBOUNCER = [
  'test/modules/consents/consents.test.ts',
  'test/modules/consents/consent-writer.test.ts',
  'test/modules/consents/consent-counts.test.ts',
  'test/modules/consent-proof/consent-proof.test.ts',
  // Scans claimed by instances in turn (not its test in Chromium, which it skips here; nor
  // scans.test.ts, all in Chromium: minutes more for nothing the pooler changes).
  'test/modules/scans/scan-fairness.test.ts',
  // Counts under advisory transaction locks, with simultaneous requests.
  'test/http/owner-limits.test.ts',
  'test/modules/widget/widget.test.ts',
  'test/modules/stats/visit-counter.test.ts',
  'test/modules/stats/stats.test.ts',
];
const withPgBouncer = !!process.env.DATABASE_URL && (existsSync('/usr/sbin/pgbouncer') || !!process.env.CI);

/**
 * Files whose outcome cannot depend on the engine under test run in the embedded project only. The
 * files other than unit tests say so at their top.
 */
const ENGINE_INDEPENDENT = [
  // Pure unit tests: no database at all.
  'test/**/*.unit.test.ts',
  // No database either: a page in the browser; the dashboard's files served from a folder.
  'test/app/browser-smoke.test.ts',
  'test/modules/dashboard/dashboard-serving.test.ts',
  // The embedded data directory's lock, and its backup and restore: always PGlite, whatever the project.
  'test/db/data-dir-lock.test.ts',
  'test/db/embedded-backup.test.ts',
  // The dashboard's pages and the banner in a browser: the API under them (the widget's routes,
  // consents, page views, the banner's settings) is tested on both engines.
  'test/modules/dashboard/*browser.test.ts',
  'test/modules/widget/banner-browser.test.ts',
  'test/modules/widget/banner-browser-edges.test.ts',
  'test/modules/widget/banner-languages-browser.test.ts',
  'test/modules/widget/gpp-browser.test.ts',
  'test/modules/widget/banner-modes-browser.test.ts',
  'test/modules/notices/notice-browser.test.ts',
  'test/modules/widget/declaration-browser.test.ts',
  'test/modules/widget/embeds-browser.test.ts',
  // The OpenAPI document and the types made from it: built from the route schemas, read no row.
  'test/app/openapi.test.ts',
  'test/web/web-types.test.ts',
  'test/app/housekeeping.test.ts',
  // What the server logs of its requests and of X-Forwarded-For: written before any query, and the
  // requests logged read nothing the engine keeps.
  'test/http/request-log.test.ts',
  'test/http/proxy-warning.test.ts',
  // The server process's own log and its start-up failures (addresses, ports, DATA_DIR): the
  // database plays no part; they start the real server on an embedded data directory.
  'test/app/server-logs.test.ts',
  'test/app/startup-failures.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // What a poll waits for (a browser's request, a flush) can take seconds on a loaded CI machine;
    // the 1 s default is short for that. A poll that succeeds returns at once.
    expect: { poll: { timeout: 10_000 } },
    // The banner bundle is built fresh from banner/ before the tests that serve it, the dashboard
    // for the browser tests when it is missing or stale, the migrated embedded database that each
    // test file's app starts from a copy of, and the bundles that tests run as child processes
    // (see the files).
    globalSetup: [
      'test/helpers/banner-bundle.ts',
      'test/helpers/web-build.ts',
      'test/helpers/embedded-template.ts',
      'test/helpers/built-entries.ts',
      'test/helpers/pgbouncer.ts',
    ],
    projects: engines.map((engine): TestProjectInlineConfiguration => ({
      extends: true,
      test: {
        name: engine,
        env: { TEST_DB: engine },
        // Two files at a time (Vitest's default on two cores is one worker in all): they share
        // nothing but the machine; each PostgreSQL file has its own schema (the migrator looks at its
        // own schema only, see src/db/own-schema-dialect.ts). The embedded files run first, then the
        // PostgreSQL ones. A worker keeps the modules it imported from one file to the next
        // (`isolate: false`): importing the app again for every file took about half of the suite's
        // time, and no test stubs globals, modules or the environment (apps take their settings as
        // arguments), so nothing carries over but loaded code.
        maxWorkers: 2,
        isolate: false,
        ...(engine === 'postgres' ? { sequence: { groupOrder: 1 } } : {}),
        include: ['test/**/*.test.ts'],
        exclude: engine === 'embedded' ? configDefaults.exclude : [...configDefaults.exclude, ...ENGINE_INDEPENDENT],
      },
    })).concat(withPgBouncer ? [{
      // The third group: after the embedded and the PostgreSQL files.
      extends: true,
      test: {
        name: 'pgbouncer',
        env: { TEST_DB: 'postgres', TEST_POOLER: 'pgbouncer' },
        maxWorkers: 2,
        isolate: false,
        sequence: { groupOrder: 2 },
        include: THROUGH_PGBOUNCER,
        // Unnamed statements are planned every time, and four server connections serve each file.
        testTimeout: 90_000,
        exclude: configDefaults.exclude,
      },
    }] : []),
  },
});
