import { describe, expect, it } from 'vitest';
import { isId, newId } from '../../src/db/ids.ts';
import { utcDay } from '../../src/modules/stats/stats.service.ts';

describe('ids and days', () => {
  it('makes distinct version-7 UUIDs in the order they were made, past its buffer of random words', () => {
    const ids = Array.from({ length: 3000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every(isId)).toBe(true);
  });

  it('tells the UTC day of any moment, whatever day it was asked before', () => {
    const moments: Array<[string, string]> = [
      ['2026-11-27T23:59:59.999Z', '2026-11-27'],
      ['2026-11-28T00:00:00.000Z', '2026-11-28'],
      ['2026-11-27T12:00:00.000Z', '2026-11-27'],
      ['1969-12-31T23:59:59.999Z', '1969-12-31'],
      ['2026-11-27T00:00:00.000Z', '2026-11-27'],
    ];
    for (const [at, day] of moments) expect(utcDay(new Date(at)), at).toBe(day);
  });
});
