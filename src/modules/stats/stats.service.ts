import type { Executor } from '../../db/kysely.ts';
import { BadRequestError, NotFoundError } from '../../http/app-errors.ts';
import { HyperLogLog } from '../../lib/hyperloglog.ts';
import { addDays, buckets, cover, daysBetween, type Period } from './periods.ts';
import { categoryDays, categoryNames, consentDays, consentsBy, groupAccounts, groupExists, sketchesOf, tcfPurposeCounts, visitDays } from './stats.repository.ts';
import {
  toGroupAccount, type Breakdown, type BreakdownEntry, type GroupStats, type Interval, type Stats, type StatsFigures, type StatsQuery,
  type TcfPurposeStats,
} from './stats.schema.ts';

/** Ten years of days at most in one answer. */
const MAX_DAYS = 3_660;

/**
 * The days asked about lie within these (the period before a range, compared with it, too): days
 * are compared as `YYYY-MM-DD` text, which a year past 9999 or before 1 would break.
 */
const FIRST_DAY = '1970-01-01';
const LAST_DAY = '2999-12-31';

/** The range asked for, or the last 30 days; 400 when it is backwards, too long or out of bounds. */
function rangeOf(query: StatsQuery): { from: string; to: string; interval: Interval; by: StatsQuery['by'] } {
  const to = query.to ?? new Date().toISOString().slice(0, 10);
  // The default start never falls before the first day: only a day the client sent is blamed.
  const start = addDays(to, -29);
  const from = query.from ?? (start < FIRST_DAY ? FIRST_DAY : start);
  for (const [name, day] of [['to', to], ['from', from]] as const) {
    if (day < FIRST_DAY || day > LAST_DAY) throw new BadRequestError(`${name} must be a day from ${FIRST_DAY} to ${LAST_DAY}`);
  }
  if (from > to) throw new BadRequestError('from must not be after to');
  if (daysBetween(from, to) > MAX_DAYS) throw new BadRequestError(`from and to must be at most ${MAX_DAYS} days apart`);
  return { from, to, interval: query.interval ?? 'day', by: query.by };
}

/** An account's statistics over the range asked for (by default the last 30 days). */
export async function statsOfAccount(db: Executor, accountId: string, query: StatsQuery): Promise<Stats> {
  const { from, to, interval, by } = rangeOf(query);
  const [{ perAccount: _, ...stats }, breakdown] = await Promise.all([
    accountStats(db, [accountId], from, to, interval),
    breakdownOf(db, [accountId], from, to, by),
  ]);
  return { ...stats, ...breakdown };
}

/** The statistics of a partner's group: its accounts' summed, with each one's totals; 404 for another's group. */
export async function statsOfGroup(db: Executor, partnerId: string, groupId: string, query: StatsQuery): Promise<GroupStats> {
  if (!(await groupExists(db, partnerId, groupId))) throw new NotFoundError();
  const { from, to, interval, by } = rangeOf(query);
  const accounts = await groupAccounts(db, partnerId, groupId);
  const accountIds = accounts.map((a) => a.id);
  const [{ perAccount, ...stats }, breakdown] = await Promise.all([
    accountStats(db, accountIds, from, to, interval, { perAccount: true }),
    breakdownOf(db, accountIds, from, to, by),
  ]);
  return { ...stats, ...breakdown, accounts: accounts.map((account) => toGroupAccount(account, perAccount.get(account.id)!)) };
}

interface Tally {
  consents: number;
  all: number;
  custom: number;
  necessary: number;
  gpc: number;
  pageviews: number;
  dailyVisitors: number;
  dailyChoosers: number;
  categories: Map<string, { accepted: number; rejected: number }>;
  /**
   * Per account: sessions belong to one site, so a group's visitors are the sum of its accounts'.
   * `visitors` is built as the union of both stored sketches, so that `choosers` is contained in it.
   */
  sketches: Map<string, { visitors: HyperLogLog; choosers: HyperLogLog }>;
}

const emptyTally = (): Tally => ({
  consents: 0, all: 0, custom: 0, necessary: 0, gpc: 0, pageviews: 0, dailyVisitors: 0, dailyChoosers: 0, categories: new Map(), sketches: new Map(),
});

const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/**
 * The figures of a span. The consent rate is the visitors who chose over the visitors, both distinct
 * and over the same span: the choosers' sketch of each account is contained in its visitors' (the
 * union of both is what is counted), and the count is monotone, so each account's choosers never
 * count more than its visitors, nor their sums; a day's stored counts were taken so too.
 */
function figures(tally: Tally, names: Map<string, { slug: string; name: string }>, oneDay: boolean): StatsFigures {
  // One day's visitors were counted from its sketch when it was stored; longer spans merge sketches.
  const sketches = [...tally.sketches.values()];
  const visitors = oneDay ? tally.dailyVisitors : sketches.reduce((sum, s) => sum + s.visitors.count(), 0);
  const choosers = oneDay ? tally.dailyChoosers : sketches.reduce((sum, s) => sum + s.choosers.count(), 0);
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
    consenting_visitors: choosers,
    consent_rate: rate(choosers, visitors),
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

  // Unique visitors over more than a day: each span is covered by whole months, weeks and days,
  // whose sketches are merged (a year by day reads about 30 sketches, not 730).
  const spans: { tally: Tally; parts: Period[]; accountId?: string }[] = [
    { tally: total, parts: cover(from, to) },
    { tally: previous, parts: cover(previousFrom, previousTo) },
    ...[...accounts].map(([accountId, tally]) => ({ tally, parts: cover(from, to), accountId })),
    ...list.flatMap((bucket, i) => (bucket.start === bucket.end ? [] : [{ tally: tallies[i], parts: cover(bucket.start, bucket.end) }])),
  ];
  const periods = new Map(spans.flatMap((span) => span.parts).map((part) => [`${part.grain} ${part.start}`, part]));
  const [consents, categories, visits, sketches, names] = await Promise.all([
    consentDays(db, accountIds, previousFrom, to),
    categoryDays(db, accountIds, from, to),
    visitDays(db, accountIds, previousFrom, to),
    sketchesOf(db, accountIds, [...periods.values()]),
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
      t.dailyChoosers += row.choosers;
    }
  }
  const stored = new Map<string, typeof sketches>();
  for (const row of sketches) {
    const key = `${row.grain} ${row.start}`;
    const rows = stored.get(key);
    if (rows) rows.push(row);
    else stored.set(key, [row]);
  }
  for (const { tally, parts, accountId } of spans) {
    for (const part of parts) {
      for (const row of stored.get(`${part.grain} ${part.start}`) ?? []) {
        if (accountId !== undefined && row.account_id !== accountId) continue;
        const sketch = tally.sketches.get(row.account_id);
        if (sketch) {
          sketch.visitors.merge(row.registers).merge(row.chooser_registers);
          sketch.choosers.merge(row.chooser_registers);
        } else {
          tally.sketches.set(row.account_id, {
            visitors: new HyperLogLog(row.registers).merge(row.chooser_registers), choosers: new HyperLogLog(row.chooser_registers),
          });
        }
      }
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

/**
 * The range's consents per country or per mode, with their rates, most consents first (ties by
 * value, the unknown last). Read from the writer's rollup by day, country and mode: the cost grows
 * with the days and the countries, not with the consents.
 */
export async function consentBreakdown(db: Executor, accountIds: string[], from: string, to: string, by: Breakdown): Promise<BreakdownEntry[]> {
  if (accountIds.length === 0) return [];
  const rows = await consentsBy(db, accountIds, from, to, by);
  return rows
    .map((row) => ({
      value: row.value === '' ? null : row.value,
      consents: row.consents,
      accept_types: { all: row.accept_all, custom: row.accept_custom, necessary: row.accept_necessary },
      opt_outs: row.opt_outs,
      gpc: row.gpc,
      accept_all_rate: rate(row.accept_all, row.consents),
      reject_all_rate: rate(row.accept_necessary, row.consents),
      custom_rate: rate(row.accept_custom, row.consents),
      opt_out_rate: rate(row.opt_outs, row.consents),
      gpc_share: rate(row.gpc, row.consents),
    }))
    .sort((a, b) => b.consents - a.consents || (a.value === null ? 1 : b.value === null ? -1 : a.value < b.value ? -1 : 1));
}

/** The part of the answer `by` asks for: `breakdown` per country or mode, or `tcf_purposes`; nothing without `by`. */
async function breakdownOf(db: Executor, accountIds: string[], from: string, to: string, by: StatsQuery['by']): Promise<Pick<Stats, 'breakdown' | 'tcf_purposes'>> {
  if (by === undefined) return {};
  if (by === 'tcf_purpose') return { tcf_purposes: await tcfPurposeStats(db, accountIds, from, to) };
  return { breakdown: await consentBreakdown(db, accountIds, from, to, by) };
}

/**
 * The range's TC strings and, per TCF purpose 1 to 11, how many gave consent to it and how many
 * left its legitimate interest standing: read from the writer's rollup by day and purpose.
 */
export async function tcfPurposeStats(db: Executor, accountIds: string[], from: string, to: string): Promise<TcfPurposeStats> {
  const rows = accountIds.length === 0 ? [] : await tcfPurposeCounts(db, accountIds, from, to);
  const of = new Map(rows.map((row) => [Number(row.purpose), row]));
  const strings = of.get(0)?.consents ?? 0;
  return {
    tc_strings: strings,
    purposes: Array.from({ length: 11 }, (_, i) => {
      const row = of.get(i + 1);
      const consents = row?.consents ?? 0;
      return { purpose: i + 1, consents, legitimate_interests: row?.legitimate_interests ?? 0, consent_rate: rate(consents, strings) };
    }),
  };
}

/** What other modules use of the statistics: the seed's sketches and the visit counter. */
export { mergeSketches } from './stats.repository.ts';
export { VisitCounter } from './visit-counter.ts';
