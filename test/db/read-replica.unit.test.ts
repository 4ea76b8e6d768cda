/** The replica's positions as numbers, and which failures of a read on it the primary answers instead. */
import { describe, expect, it } from 'vitest';
import { lsnValue, replicaFailure } from '../../src/db/read-replica.ts';

describe('read replica helpers', () => {
  it('reads a pg_lsn as bytes, the high half first', () => {
    expect(lsnValue('0/0')).toBe(0n);
    expect(lsnValue('0/16B3748')).toBe(0x16b3748n);
    expect(lsnValue('1/0')).toBe(1n << 32n);
    expect(lsnValue('16/B374D848') > lsnValue('15/FFFFFFFF')).toBe(true);
  });

  it('retries on the primary what the replica could not answer, not a mistake in the query', () => {
    for (const code of [undefined, 'ECONNREFUSED', 'ECONNRESET', '08006', '57P01', '57P03', '40001']) {
      expect(replicaFailure(Object.assign(new Error('x'), { code }))).toBe(true);
    }
    for (const code of ['42P01', '42703', '22P02', '23505', '25006']) {
      expect(replicaFailure(Object.assign(new Error('x'), { code }))).toBe(false);
    }
  });
});
