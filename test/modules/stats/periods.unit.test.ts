/** The periods statistics are kept in: buckets of an interval, and a span covered by whole periods. */
import { describe, expect, it } from 'vitest';
import { addDays, buckets, cover, daysBetween, periodStart } from '../../../src/modules/stats/periods.ts';

/** Every day a list of periods holds, in order. */
function daysOf(parts: { grain: 'day' | 'week' | 'month'; start: string }[]): string[] {
  return parts.flatMap(({ grain, start }) => {
    const end = grain === 'day' ? start : grain === 'week' ? addDays(start, 6) : addDays(periodStart(addDays(start, 31), 'month'), -1);
    return Array.from({ length: daysBetween(start, end) }, (_, i) => addDays(start, i));
  });
}

describe('cover', () => {
  it('covers a year with its whole months, and whole weeks and days at the ends', () => {
    const parts = cover('2025-11-26', '2026-11-25');
    expect(parts.filter((p) => p.grain === 'month').map((p) => p.start)).toEqual([
      '2025-12-01', '2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01', '2026-06-01', '2026-07-01', '2026-08-01', '2026-09-01', '2026-10-01',
    ]);
    expect(parts.length).toBeLessThan(30);
    expect(daysOf(parts)).toEqual(Array.from({ length: 365 }, (_, i) => addDays('2025-11-26', i)));
  });

  it('holds every day of any span exactly once, with no part reaching outside it', () => {
    let state = 7;
    const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 300; n++) {
      const from = addDays('2024-01-01', Math.floor(next() * 900));
      const to = addDays(from, Math.floor(next() * 400));
      const parts = cover(from, to);
      expect(daysOf(parts), `${from}..${to}`).toEqual(Array.from({ length: daysBetween(from, to) }, (_, i) => addDays(from, i)));
      for (const part of parts) expect(periodStart(part.start, part.grain)).toBe(part.start);
    }
  });

  it('is one day for one day, and a month for a whole month even when it is not from a Monday', () => {
    expect(cover('2026-03-04', '2026-03-04')).toEqual([{ grain: 'day', start: '2026-03-04' }]);
    expect(cover('2026-02-01', '2026-02-28')).toEqual([{ grain: 'month', start: '2026-02-01' }]);
    expect(cover('2026-03-02', '2026-03-09')).toEqual([{ grain: 'week', start: '2026-03-02' }, { grain: 'day', start: '2026-03-09' }]);
  });
});

describe('buckets', () => {
  it('cuts the first and the last interval to the range', () => {
    expect(buckets('2026-01-07', '2026-01-20', 'week')).toEqual([
      { start: '2026-01-07', end: '2026-01-11' }, { start: '2026-01-12', end: '2026-01-18' }, { start: '2026-01-19', end: '2026-01-20' },
    ]);
    expect(buckets('2026-01-31', '2026-03-01', 'month')).toEqual([
      { start: '2026-01-31', end: '2026-01-31' }, { start: '2026-02-01', end: '2026-02-28' }, { start: '2026-03-01', end: '2026-03-01' },
    ]);
  });
});
