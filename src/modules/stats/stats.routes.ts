import { BadRequestError, NotFoundError } from '../../http/app-errors.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf, scopeOf } from '../../http/auth.ts';
import { IdParams, withErrors } from '../../http/schemas.ts';
import { groupAccounts, groupExists } from './stats.repository.ts';
import { GroupStatsSchema, StatsQuery, StatsSchema, type Breakdown, type Interval } from './stats.schema.ts';
import { addDays, daysBetween } from './periods.ts';
import { accountStats, consentBreakdown } from './stats.service.ts';

const tags = ['Statistics'];
const security = [{ bearer: [] }];
/** Ten years of days at most in one answer. */
const MAX_DAYS = 3_660;

/**
 * The days asked about lie within these (the period before a range, compared with it, too): days
 * are compared as `YYYY-MM-DD` text, which a year past 9999 or before 1 would break.
 */
const FIRST_DAY = '1970-01-01';
const LAST_DAY = '2999-12-31';

/** The range asked for, or the last 30 days; 400 when it is backwards, too long or out of bounds. */
function rangeOf(query: StatsQuery): { from: string; to: string; interval: Interval; by: Breakdown | undefined } {
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

/** Consent and visit statistics from the daily rollups, for an account or a partner's group. */
export const statsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/stats', {
    config: { auth: 'account' },
    schema: {
      operationId: 'getStats', tags, security,
      summary: 'Consents by accept type, acceptance per category, GPC share, pageviews, unique visitors and consent rate, per interval; with `by`, per country or mode',
      querystring: StatsQuery,
      response: withErrors({ 200: StatsSchema }, { 400: 'array' }),
    },
  }, async (request) => {
    const { from, to, interval, by } = rangeOf(request.query);
    const accountIds = [scopeOf(request).accountId];
    const [{ perAccount: _, ...stats }, breakdown] = await Promise.all([
      accountStats(db, accountIds, from, to, interval),
      by && consentBreakdown(db, accountIds, from, to, by),
    ]);
    return breakdown ? { ...stats, breakdown } : stats;
  });

  app.get('/groups/:id/stats', {
    config: { auth: 'partner' },
    schema: {
      operationId: 'getGroupStats', tags, security,
      summary: 'The statistics of a group\'s accounts, summed, with each account\'s totals',
      params: IdParams,
      querystring: StatsQuery,
      response: withErrors({ 200: GroupStatsSchema }, { 400: 'array', 404: true }),
    },
  }, async (request) => {
    const partnerId = principalOf(request).partnerId!;
    if (!(await groupExists(db, partnerId, request.params.id))) throw new NotFoundError();
    const { from, to, interval, by } = rangeOf(request.query);
    const accounts = await groupAccounts(db, partnerId, request.params.id);
    const accountIds = accounts.map((a) => a.id);
    const [{ perAccount, ...stats }, breakdown] = await Promise.all([
      accountStats(db, accountIds, from, to, interval, { perAccount: true }),
      by && consentBreakdown(db, accountIds, from, to, by),
    ]);
    return {
      ...stats,
      ...(breakdown && { breakdown }),
      accounts: accounts.map((account) => {
        const figures = perAccount.get(account.id)!;
        return {
          id: account.id, name: account.name, consents: figures.consents, pageviews: figures.pageviews,
          unique_visitors: figures.unique_visitors, consent_rate: figures.consent_rate,
        };
      }),
    };
  });
};
