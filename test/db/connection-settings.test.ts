/** What every pooled PostgreSQL connection of the service is opened with. */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDb } from '../../src/db/database.ts';
import { ENGINE } from '../helpers/app.ts';

describe.skipIf(ENGINE !== 'postgres')('PostgreSQL connections', () => {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const db = createDb(loadConfig({ DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema }));
  afterAll(() => db.close());

  it('run without JIT (its compile time dwarfed the listings it was chosen for) in the configured schema', async () => {
    for (let i = 0; i < 3; i++) {
      const { rows } = await sql<{ jit: string; search_path: string }>`select current_setting('jit') as jit, current_setting('search_path') as search_path`.execute(db.kysely);
      expect(rows[0]).toEqual({ jit: 'off', search_path: schema });
    }
  });
});
