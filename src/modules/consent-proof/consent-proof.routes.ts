import { Type, type TSchema } from 'typebox';
import { BadRequestError, ValidationError } from '../../http/app-errors.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf, scopeOf } from '../../http/auth.ts';
import { listAnswer } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import { listErasures } from './consent-proof.repository.ts';
import {
  CheckpointList, CheckpointQuery, EraseBody, ErasureListQuery, ErasureSchema, toCheckpoint, toErasure, VerificationSchema,
} from './consent-proof.schema.ts';
import { checkpointsOf, eraseConsents, exportConsents, subjectHash, verifyChain } from './consent-proof.service.ts';
import { ConsentExportQuery } from '../consents/consents.schema.ts';

const tags = ['Consents'];
/** Text streamed as it is read: typed loosely, as a stream is no value the schema's type describes. */
const ExportAnswer: Record<number, TSchema> = {
  200: {
    description: 'One consent per line (CSV with a header line, or one JSON object per line)',
    content: { 'text/csv': { schema: Type.String() }, 'application/x-ndjson': { schema: Type.String() } },
  },
};

/** Proof of consent: chain verification, daily checkpoints, the streamed export, erasure. */
export const consentProofRoutes: RoutesPlugin = async (app, { services }) => {
  // Verification, checkpoints and the export may be stale by the replica's lag (DATABASE_READ_URL);
  // erasure and its log stay on the primary (the log is read right after an erasure).
  const { db, readDb } = services;
  const proof = resourceRoutes(app, { path: '/consents', tags, access: ACCOUNT_ACCESS });
  const erasures = resourceRoutes(app, { path: '/consents/erasures', tags, access: ACCOUNT_ACCESS });

  proof.route('GET', '/verify', {
    rule: 'read', operationId: 'verifyConsents',
    summary: 'Recompute the account\'s consent hash chain and report the first consent that breaks it',
    response: { 200: VerificationSchema },
  }, async (request) => verifyChain(readDb, scopeOf(request).accountId));

  proof.route('GET', '/checkpoints', {
    rule: 'read', operationId: 'listConsentCheckpoints',
    summary: 'The chain head at the end of each day with consents: a copy an auditor can keep',
    querystring: CheckpointQuery, response: { 200: CheckpointList },
  }, async (request) => ({ data: (await checkpointsOf(readDb, scopeOf(request).accountId, request.query)).map(toCheckpoint) }));

  proof.route('GET', '/export', {
    rule: 'read', operationId: 'exportConsents',
    summary: 'Every matching consent with its hash, oldest first, streamed as CSV or NDJSON',
    querystring: ConsentExportQuery, response: ExportAnswer,
  }, async (request, reply) => {
    const format = request.query.format ?? 'ndjson';
    const { accountId } = scopeOf(request);
    reply
      .header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="consents-${accountId}.${format === 'csv' ? 'csv' : 'ndjson'}"`)
      .header('cache-control', 'no-store');
    return reply.send(exportConsents(readDb, accountId, request.query, format));
  });

  proof.route('POST', '/erase', {
    rule: 'write', operationId: 'eraseConsents',
    summary: 'Clear the personal fields of a user\'s or a session\'s consents (GDPR Art. 17); the records and the chain stay',
    body: EraseBody, response: { 200: Type.Object({ data: ErasureSchema }) },
  }, async (request) => {
    const { user_id: userId, session_id: sessionId } = request.body;
    if (userId === undefined && sessionId === undefined) throw new ValidationError('User id or session id can\'t be blank');
    if (userId !== undefined && sessionId !== undefined) throw new ValidationError('User id and session id cannot both be given');
    const principal = principalOf(request);
    const by = principal.type === 'user'
      ? { type: 'User', id: principal.userId }
      : { type: principal.type === 'account' ? 'API' : 'Partner', id: principal.tokenId };
    const field = userId !== undefined ? 'user_id' : 'session_id';
    const erasure = await eraseConsents(db, scopeOf(request).accountId, field, (userId ?? sessionId)!, by);
    return { data: toErasure(erasure) };
  });

  erasures.list({
    operationId: 'listConsentErasures',
    summary: 'The erasure log: who erased whose consents and when, newest first; filter by the subject to show it was done',
    querystring: ErasureListQuery, item: ErasureSchema,
  }, async (request) => {
    const { user_id: userId, session_id: sessionId } = request.query;
    if (userId !== undefined && sessionId !== undefined) throw new BadRequestError('user_id and session_id cannot both be given');
    const subject = userId !== undefined ? { type: 'user_id' as const, hash: subjectHash(userId) }
      : sessionId !== undefined ? { type: 'session_id' as const, hash: subjectHash(sessionId) } : undefined;
    return listAnswer(request, { sort: 'created_at', order: 'desc' },
      (sort, window) => listErasures(db, scopeOf(request).accountId, subject, sort, window), toErasure);
  });
};
