import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.ts';
import { createDb, migrate } from '../../src/db/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    embeddedTemplate: string;
    embeddedEmptyTemplate: string;
  }
}

/** tmpfs where there is one: the copies are written and removed many times a run. */
const scratch = () => (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());

const open = (dataDir: string) => createDb(loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: '', DATA_DIR: dataDir }));

/**
 * Vitest's global setup for the embedded project: one PGlite data directory, created and migrated
 * by the production code (createDb, migrate) from the current migrations, at the start of every run.
 * A new PGlite spends seconds in initdb (WebAssembly); copying this directory takes a tenth of that,
 * so each test file's embedded database starts as a copy of it (see `freshDataDir`). A copy of the
 * same directory before its first migration serves the tests of the migrations themselves.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (project.config.env?.TEST_DB !== 'embedded') return undefined;
  const dataDir = mkdtempSync(join(scratch(), 'consentry-template-'));
  const emptyDir = mkdtempSync(join(scratch(), 'consentry-empty-template-'));
  const remove = () => {
    for (const dir of [dataDir, emptyDir]) rmSync(dir, { recursive: true, force: true });
  };
  try {
    // initdb, and nothing more: the empty template.
    const created = open(dataDir);
    try {
      await sql`select 1`.execute(created.kysely);
    } finally {
      await created.close();
    }
    cpSync(join(dataDir, 'pgdata'), join(emptyDir, 'pgdata'), { recursive: true });
    const database = open(dataDir);
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
  } catch (error) {
    remove();
    throw error;
  }
  project.provide('embeddedTemplate', dataDir);
  project.provide('embeddedEmptyTemplate', emptyDir);
  return remove;
}

/**
 * A new embedded database: a fresh directory holding a copy of the migrated template's data (not
 * its lock file), to be opened as an operator's DATA_DIR is; with `empty`, of the template before
 * its first migration. The caller removes it.
 */
export function freshDataDir(which: 'migrated' | 'empty' = 'migrated'): string {
  const template = inject(which === 'empty' ? 'embeddedEmptyTemplate' : 'embeddedTemplate');
  if (!template) throw new Error('No embedded template: the vitest configuration lacks test/helpers/embedded-template.ts as a global setup');
  const dataDir = mkdtempSync(join(scratch(), 'consentry-test-'));
  cpSync(join(template, 'pgdata'), join(dataDir, 'pgdata'), { recursive: true });
  return dataDir;
}
