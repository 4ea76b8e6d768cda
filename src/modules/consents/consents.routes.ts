import { Type } from 'typebox';
import { found, ValidationError } from '../../http/app-errors.ts';
import { listAnswer } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { findConsent, listConsents } from './consents.repository.ts';
import { ConsentDetailSchema, ConsentListQuery, ConsentSchema, CreateConsentBody, toConsent, toConsentDetail } from './consents.schema.ts';
import { idempotencyKeyHeader, recordConsent, visitorContext } from './consents.service.ts';

export const consentsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const consents = resourceRoutes(app, { path: '/consents', tags: ['Consents'], access: ACCOUNT_ACCESS });

  // The listing may be stale by the replica's lag (DATABASE_READ_URL); one consent by id is read
  // from the primary, as a client reads the one it has just recorded.
  consents.list({
    operationId: 'listConsents', summary: 'Recorded consents, newest first; filter by session, user or time',
    querystring: ConsentListQuery, item: ConsentSchema, config: { errorForm: 'single' },
  }, (request) => listAnswer(request, { sort: 'created_at', order: 'desc' },
    (sort, window) => listConsents(services.readConnection, scopeOf(request).accountId, request.query, sort, window), toConsent));

  consents.one({
    operationId: 'getConsent', summary: 'One consent, with its place in the hash chain',
    answer: Type.Object({ data: ConsentDetailSchema }),
  }, async (request) => ({ data: toConsentDetail(found(await findConsent(db, scopeOf(request).accountId, request.params.id))) }));

  consents.create({
    operationId: 'createConsent',
    summary: 'Record a consent server-side (a backend or a mobile app); committed before the answer',
    body: CreateConsentBody, answer: Type.Object({ data: ConsentSchema }),
  }, async (request, reply) => {
    const accountId = scopeOf(request).accountId;
    const key = idempotencyKeyHeader(request.headers['idempotency-key']);
    const { consent, earlier } = await recordConsent(services, accountId, request.body.consent, visitorContext(request), key);
    if (!earlier) return { data: toConsent(consent) };
    // The key came with an earlier consent: that one, as it is stored, and nothing recorded.
    reply.header('idempotent-replayed', 'true');
    const stored = await findConsent(db, accountId, earlier.id);
    if (!stored) throw new ValidationError('Idempotency-Key was used for a consent that is no longer stored');
    return { data: toConsent(stored) };
  });
};
