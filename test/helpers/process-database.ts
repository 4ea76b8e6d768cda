import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDb } from '../../src/db/database.ts';
import { ENGINE } from './app.ts';
import { freshDataDir } from './embedded-template.ts';

/**
 * The database of a test file that runs the real server process (server-process.ts): a schema of its
 * own on PostgreSQL, or a data directory holding a copy of the migrated template (embedded-template.ts),
 * dropped after the file's tests. `env` is the server's environment (with `settings` added);
 * `database()` opens it from the test.
 */
export function processDatabase(name: string, settings: Record<string, string>) {
  const schema = `${name}_${randomBytes(5).toString('hex')}`;
  const env: Record<string, string> = {
    ...(ENGINE === 'postgres' ? { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_SCHEMA: schema } : { DATABASE_URL: '', DATA_DIR: freshDataDir() }),
    ...settings,
  };
  const database = () => createDb(loadConfig({ ...process.env, ...env, LOG_LEVEL: 'silent' }));
  afterAll(async () => {
    if (ENGINE === 'postgres') {
      const db = database();
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.kysely);
      await db.close();
    }
    if (env.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
  });
  return { env, database };
}
