/** DATABASE_DIRECT_URL: PostgreSQL itself behind a transaction pooler, and what it says about DATABASE_URL. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const POOLER = 'postgres://consentry@127.0.0.1:6432/consentry';
const DIRECT = 'postgres://consentry@db.internal:5432/consentry';

describe('DATABASE_DIRECT_URL', () => {
  it('defaults to DATABASE_URL, which is then PostgreSQL itself', () => {
    expect(loadConfig({ DATABASE_URL: DIRECT })).toMatchObject({ databaseDirectUrl: DIRECT, databaseTransactionPooler: false });
    expect(loadConfig({ DATABASE_URL: DIRECT, DATABASE_DIRECT_URL: DIRECT })).toMatchObject({ databaseDirectUrl: DIRECT, databaseTransactionPooler: false });
  });

  it('set to another address, marks DATABASE_URL as a transaction pooler', () => {
    expect(loadConfig({ DATABASE_URL: POOLER, DATABASE_DIRECT_URL: DIRECT })).toMatchObject({ databaseUrl: POOLER, databaseDirectUrl: DIRECT, databaseTransactionPooler: true });
  });

  it('is refused without a PostgreSQL DATABASE_URL, or when it is not PostgreSQL', () => {
    expect(() => loadConfig({ DATABASE_DIRECT_URL: DIRECT })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: 'memory://', DATABASE_DIRECT_URL: DIRECT })).toThrow(/DATABASE_DIRECT_URL/);
    expect(() => loadConfig({ DATABASE_URL: POOLER, DATABASE_DIRECT_URL: 'memory://' })).toThrow(/DATABASE_DIRECT_URL must start with postgres:/);
    expect(loadConfig({})).toMatchObject({ databaseDirectUrl: undefined, databaseTransactionPooler: false });
  });
});
