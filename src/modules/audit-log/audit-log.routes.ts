import { BadRequestError } from '../../http/app-errors.ts';
import { scopeOf } from '../../http/auth.ts';
import { listAnswer } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { listAuditEntries } from './audit-log.repository.ts';
import { AuditEntrySchema, AuditLogQuery, toAuditEntry } from './audit-log.schema.ts';

/** Who changed what in the account's configuration, and when. */
export const auditLogRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const log = resourceRoutes(app, { path: '/audit-log', tags: ['Audit log'], access: ACCOUNT_ACCESS });

  log.list({
    operationId: 'listAuditLog',
    summary: "Every change of the account's configuration: who, when, what, the fields before and after; newest first",
    querystring: AuditLogQuery, item: AuditEntrySchema,
  }, (request) => {
    const { actor_type, actor_id, resource_type, resource_id, since, until } = request.query;
    if (since !== undefined && until !== undefined && Date.parse(since) > Date.parse(until)) throw new BadRequestError('since must not be after until');
    return listAnswer(request, { sort: 'created_at', order: 'desc' },
      (sort, window) => listAuditEntries(db, scopeOf(request).accountId, { actor_type, actor_id, resource_type, resource_id, since, until }, sort, window),
      toAuditEntry);
  });
};
