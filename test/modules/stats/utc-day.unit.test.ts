import { describe, expect, it } from 'vitest';
import { utcDay } from '../../../src/lib/utc-period.ts';

describe('utcDay', () => {
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
