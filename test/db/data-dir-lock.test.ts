import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { DataDirInUseError, lockDataDir } from '../../src/db/data-dir-lock.ts';
import { createServices } from '../../src/services.ts';
import { call } from '../helpers/app.ts';
import { freshDataDir } from '../helpers/embedded-template.ts';

// The lock guards PGlite's data directory, which these tests open whatever the project's engine:
// they run in the embedded project only (vitest.config.ts).

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'consentry-lock-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database lock', () => {
  // A lock file left by a killed server whose pid now belongs to a live process: pid 1 (init, or the
  // server itself in a container) and the process that started this test run.
  for (const [who, pid] of [['pid 1', 1], ['the parent process', process.ppid]] as const) {
    it(`starts over a stale lock file naming ${who}, a live process`, async () => {
      // A copy of the run's migrated template (embedded-template.ts): the server starts without initdb.
      const dataDir = freshDataDir();
      dirs.push(dataDir);
      writeFileSync(join(dataDir, 'consentry.lock'), String(pid));
      const services = await createServices(loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir }));
      try {
        const app = await buildApp(services);
        const ready = await call(app, 'GET', '/readyz');
        expect(ready.status).toBe(200);
        expect(readFileSync(join(dataDir, 'consentry.lock'), 'utf8')).toBe(String(process.pid));
        await app.close();
      } finally {
        await services.close();
      }
    });
  }

  it('refuses a second holder, naming the first, until the first lets go', () => {
    const dataDir = freshDir();
    const release = lockDataDir(dataDir);
    let refusal: unknown;
    try {
      lockDataDir(dataDir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirInUseError);
    expect((refusal as Error).message).toContain(`is in use by process ${process.pid}`);
    release();
    const again = lockDataDir(dataDir);
    again();
  });

  it('does not name a holder it does not know', () => {
    const dataDir = freshDir();
    const release = lockDataDir(dataDir);
    // The holder's pid is gone from the file (a holder that had not written it yet).
    writeFileSync(join(dataDir, 'consentry.lock'), '');
    try {
      expect(() => lockDataDir(dataDir)).toThrow(/is in use by another process/);
    } finally {
      release();
    }
  });
});
