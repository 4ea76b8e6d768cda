import { found } from '../../http/app-errors.ts';
import { scopeOf } from '../../http/auth.ts';
import { listAnswer } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { findSnapshot, listSnapshots } from './notices.repository.ts';
import { NoticeListQuery, NoticeParams, NoticeSchema, NoticeSummarySchema, toNoticeSummary } from './notices.schema.ts';

/** The notice snapshots: what the account's banner showed, each version once, by its hash. */
export const noticesRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const notices = resourceRoutes(app, { path: '/notices', tags: ['Notices'], access: ACCOUNT_ACCESS });

  notices.list({
    operationId: 'listNotices', summary: 'The notice snapshots of the account (what its banner showed), newest first',
    querystring: NoticeListQuery, item: NoticeSummarySchema,
  }, (request) => listAnswer(request, { sort: 'created_at', order: 'desc' },
    (sort, window) => listSnapshots(db, scopeOf(request).accountId, sort, window), toNoticeSummary));

  notices.route('GET', '/:hash', {
    rule: 'read', operationId: 'getNotice', summary: 'One notice snapshot: the exact content its hash was computed over',
    params: NoticeParams, response: { 200: NoticeSchema },
  }, async (request) => {
    const row = found(await findSnapshot(db, scopeOf(request).accountId, request.params.hash));
    return { data: { hash: row.hash, created_at: row.created_at.toISOString(), content: JSON.parse(row.content) as unknown } };
  });
};
