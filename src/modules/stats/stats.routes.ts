import type { RoutesPlugin } from '../../services.ts';
import { principalOf, scopeOf } from '../../http/auth.ts';
import { resourceRoutes } from '../../http/resource-routes.ts';
import { IdParams } from '../../http/schemas.ts';
import { GroupStatsSchema, StatsQuery, StatsSchema } from './stats.schema.ts';
import { statsOfAccount, statsOfGroup } from './stats.service.ts';

/** Consent and visit statistics from the daily rollups, for an account or a partner's group. */
export const statsRoutes: RoutesPlugin = async (app, { services }) => {
  // Read from the replica when there is one (DATABASE_READ_URL): statistics may be stale by its lag.
  const db = services.readDb;
  const stats = resourceRoutes(app, { tags: ['Statistics'] });

  stats.route('GET', '/stats', {
    rule: { auth: 'account' }, operationId: 'getStats',
    summary: 'Consents by accept type, acceptance per category, GPC share, pageviews, unique visitors and consent rate, per interval; with `by`, per country or mode',
    querystring: StatsQuery, response: { 200: StatsSchema },
  }, async (request) => statsOfAccount(db, scopeOf(request).accountId, request.query));

  stats.route('GET', '/groups/:id/stats', {
    rule: { auth: 'partner' }, operationId: 'getGroupStats',
    summary: 'The statistics of a group\'s accounts, summed, with each account\'s totals',
    params: IdParams, querystring: StatsQuery, response: { 200: GroupStatsSchema },
  }, async (request) => statsOfGroup(db, principalOf(request).partnerId!, request.params.id, request.query));
};
