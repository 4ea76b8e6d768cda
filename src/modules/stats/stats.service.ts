import type { Executor } from '../../db/kysely.ts';
import { HyperLogLog } from '../../lib/hyperloglog.ts';
import { categoryDays, categoryNames, consentDays, sketchDays, visitDays } from './stats.repository.ts';
import type { Interval, Stats, StatsFigures } from './stats.schema.ts';

const DAY_MS = 86_400_000;
const toDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
export const addDays = (day: string, days: number) => toDay(msOf(day) + days * DAY_MS);
export const daysBetween = (from: string, to: string) => Math.round((msOf(to) - msOf(from)) / DAY_MS) + 1;

/** The start of the interval that holds `day`: itself, its ISO week's Monday, or its month's first day. */
function periodStart(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 7)}-01`;
  const weekday = (new Date(msOf(day)).getUTCDay() + 6) % 7;
  return addDays(day, -weekday);
}

/** The buckets between two days: whole intervals, the first and last cut to the range. */
export function buckets(from: string, to: string, interval: Interval): { start: string; end: string }[] {
  const list: { start: string; end: string }[] = [];
  let start = from;
  while (start <= to) {
    let next: string;
    if (interval === 'day') next = addDays(start, 1);
    else if (interval === 'week') next = addDays(periodStart(start, 'week'), 7);
    else {
      const d = new Date(msOf(start));
      next = toDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
    }
    const end = addDays(next, -1);
    list.push({ start, end: end < to ? end : to });
    start = next;
  }
  return list;
}

interface Tally {
  consents: number;
  all: number;
  custom: number;
  necessary: number;
  gpc: number;
  pageviews: number;
  dailyVisitors: number;
  categories: Map<string, { accepted: number; rejected: number }>;
  /** Per account: sessions belong to one site, so a group's visitors are the sum of its accounts'. */
  sketches: Map<string, HyperLogLog>;
}

const emptyTally = (): Tally => ({ consents: 0, all: 0, custom: 0, necessary: 0, gpc: 0, pageviews: 0, dailyVisitors: 0, categories: new Map(), sketches: new Map() });

const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

function figures(tally: Tally, names: Map<string, { slug: string; name: string }>, oneDay: boolean): StatsFigures {
  // One day's visitors are exact (one row per session and day); longer spans are the union of sketches.
  const visitors = oneDay ? tally.dailyVisitors : [...tally.sketches.values()].reduce((sum, sketch) => sum + sketch.count(), 0);
  return {
    consents: tally.consents,
    accept_types: { all: tally.all, custom: tally.custom, necessary: tally.necessary },
    gpc_share: rate(tally.gpc, tally.consents),
    categories: [...tally.categories].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, c]) => ({
      category_id: id,
      slug: names.get(id)?.slug ?? null,
      name: names.get(id)?.name ?? null,
      accepted: c.accepted,
      rejected: c.rejected,
      acceptance_rate: rate(c.accepted, c.accepted + c.rejected),
    })),
    pageviews: tally.pageviews,
    unique_visitors: visitors,
    consent_rate: rate(tally.consents, visitors),
  };
}

const change = (now: number | null, before: number | null) =>
  now === null || before === null || before === 0 ? null : Math.round(((now - before) / before) * 10_000) / 10_000;

/**
 * The statistics of some accounts (one, or a group's) between two UTC days, per interval, with
 * totals and their change against the period of the same length just before. Read from the daily
 * rollups only: the cost grows with the days asked for, not with the consents.
 */
export async function accountStats(
  db: Executor, accountIds: string[], from: string, to: string, interval: Interval, options: { perAccount?: boolean } = {},
): Promise<Stats & { perAccount: Map<string, StatsFigures> }> {
  const length = daysBetween(from, to);
  const previousFrom = addDays(from, -length);
  const previousTo = addDays(from, -1);
  const list = buckets(from, to, interval);
  const tallies = list.map(emptyTally);
  const total = emptyTally();
  const previous = emptyTally();
  /** Each account's own totals, for a group's answer. */
  const accounts = new Map(options.perAccount ? accountIds.map((id) => [id, emptyTally()]) : []);
  const index = new Map<string, number>();
  for (const [i, bucket] of list.entries()) for (let day = bucket.start; day <= bucket.end; day = addDays(day, 1)) index.set(day, i);
  /** The tallies a day counts in: its bucket's and the total's, or the previous period's. */
  const targets = (day: string, accountId?: string): Tally[] => {
    if (day < from) return [previous];
    const i = index.get(day);
    if (i === undefined) return [];
    const own = accountId === undefined ? undefined : accounts.get(accountId);
    return own ? [tallies[i], total, own] : [tallies[i], total];
  };
  if (accountIds.length === 0) return result();

  const [consents, categories, visits, sketches, names] = await Promise.all([
    consentDays(db, accountIds, previousFrom, to),
    categoryDays(db, accountIds, from, to),
    visitDays(db, accountIds, previousFrom, to),
    sketchDays(db, accountIds, previousFrom, to),
    categoryNames(db, accountIds),
  ]);
  for (const row of consents) {
    for (const t of targets(row.day, row.account_id)) {
      t.consents += row.consents;
      t.all += row.accept_all;
      t.custom += row.accept_custom;
      t.necessary += row.accept_necessary;
      t.gpc += row.gpc;
    }
  }
  for (const row of categories) {
    for (const t of targets(row.day)) {
      const entry = t.categories.get(row.category_id) ?? { accepted: 0, rejected: 0 };
      entry.accepted += Number(row.accepted);
      entry.rejected += Number(row.rejected);
      t.categories.set(row.category_id, entry);
    }
  }
  for (const row of visits) {
    for (const t of targets(row.day, row.account_id)) {
      t.pageviews += row.pageviews;
      t.dailyVisitors += row.visitors;
    }
  }
  for (const row of sketches) {
    for (const t of targets(row.day, row.account_id)) {
      // A one-day bucket shows the exact daily count: its sketch would never be read.
      if (interval === 'day' && t !== total && t !== previous && t !== accounts.get(row.account_id)) continue;
      const sketch = t.sketches.get(row.account_id);
      if (sketch) sketch.merge(row.registers);
      else t.sketches.set(row.account_id, new HyperLogLog(row.registers));
    }
  }
  return result(new Map(names.map((n) => [n.id, n])));

  function result(categoryNames = new Map<string, { slug: string; name: string }>()): Stats & { perAccount: Map<string, StatsFigures> } {
    const oneDay = length === 1;
    const perAccount = new Map([...accounts].map(([id, tally]) => [id, figures(tally, categoryNames, oneDay)]));
    const totals = figures(total, categoryNames, oneDay);
    const before = figures(previous, categoryNames, oneDay);
    return {
      perAccount,
      from, to, interval,
      data: list.map((bucket, i) => ({ ...bucket, ...figures(tallies[i], categoryNames, bucket.start === bucket.end) })),
      totals: {
        ...totals,
        previous: { from: previousFrom, to: previousTo, consents: before.consents, pageviews: before.pageviews, unique_visitors: before.unique_visitors, consent_rate: before.consent_rate },
        change: {
          consents: change(totals.consents, before.consents),
          pageviews: change(totals.pageviews, before.pageviews),
          unique_visitors: change(totals.unique_visitors, before.unique_visitors),
          consent_rate: change(totals.consent_rate, before.consent_rate),
        },
      },
    };
  }
}
