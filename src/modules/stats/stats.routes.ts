import type { RoutesPlugin } from '../../services.ts';
import { principalOf, scopeOf } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { GroupStatsSchema, StatsQuery, StatsSchema } from './stats.schema.ts';
import { statsOfAccount, statsOfGroup } from './stats.service.ts';

const tags = ['Statistics'];

/** Consent and visit statistics from the daily rollups, for an account or a partner's group. */
export const statsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/stats', {
    config: { auth: 'account' },
    schema: {
      operationId: 'getStats', tags,
      summary: 'Consents by accept type, acceptance per category, GPC share, pageviews, unique visitors and consent rate, per interval; with `by`, per country or mode',
      querystring: StatsQuery,
      response: { 200: StatsSchema },
    },
  }, async (request) => statsOfAccount(db, scopeOf(request).accountId, request.query));

  app.get('/groups/:id/stats', {
    config: { auth: 'partner' },
    schema: {
      operationId: 'getGroupStats', tags,
      summary: 'The statistics of a group\'s accounts, summed, with each account\'s totals',
      params: IdParams,
      querystring: StatsQuery,
      response: { 200: GroupStatsSchema },
    },
  }, async (request) => statsOfGroup(db, principalOf(request).partnerId!, request.params.id, request.query));
};
