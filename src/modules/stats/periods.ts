import { DAY_MS } from '../../lib/utc-period.ts';
import type { Interval } from './stats.schema.ts';

/**
 * UTC days as `YYYY-MM-DD` strings, and the periods the statistics are kept and asked in: a day,
 * an ISO week (from Monday) or a calendar month, each named by its first day.
 */
const toDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
export const addDays = (day: string, days: number) => toDay(msOf(day) + days * DAY_MS);
export const daysBetween = (from: string, to: string) => Math.round((msOf(to) - msOf(from)) / DAY_MS) + 1;

/** The first day of the period of `grain` that holds `day`. */
export function periodStart(day: string, grain: Interval): string {
  if (grain === 'day') return day;
  if (grain === 'month') return `${day.slice(0, 7)}-01`;
  const weekday = (new Date(msOf(day)).getUTCDay() + 6) % 7;
  return addDays(day, -weekday);
}

/** The first day after the period of `grain` that starts on `start`. */
function periodAfter(start: string, grain: Interval): string {
  if (grain === 'day') return addDays(start, 1);
  if (grain === 'week') return addDays(start, 7);
  const d = new Date(msOf(start));
  return toDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

/** The buckets between two days: whole intervals, the first and last cut to the range. */
export function buckets(from: string, to: string, interval: Interval): { start: string; end: string }[] {
  const list: { start: string; end: string }[] = [];
  for (let start = from; start <= to;) {
    const next = periodAfter(periodStart(start, interval), interval);
    const end = addDays(next, -1);
    list.push({ start, end: end < to ? end : to });
    start = next;
  }
  return list;
}

export interface Period {
  grain: Interval;
  start: string;
}

/**
 * The fewest whole months, weeks and days that together are exactly the days from `from` to `to`:
 * a year is about twelve months and a few weeks and days at either end, not 365 days.
 */
export function cover(from: string, to: string): Period[] {
  const parts: Period[] = [];
  for (let day = from; day <= to;) {
    const grain = (['month', 'week'] as const).find((g) => periodStart(day, g) === day && addDays(periodAfter(day, g), -1) <= to) ?? 'day';
    parts.push({ grain, start: day });
    day = periodAfter(day, grain);
  }
  return parts;
}
