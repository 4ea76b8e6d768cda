import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { listAnswer, listOf } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { findConsent, listConsents } from './consents.repository.ts';
import { ConsentDetailSchema, ConsentListQuery, ConsentSchema, CreateConsentBody, toConsent, toConsentDetail } from './consents.schema.ts';
import { recordConsent, visitorContext } from './consents.service.ts';


const tags = ['Consents'];

export const consentsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/consents', {
    config: { auth: 'account', errorForm: 'single' },
    schema: {
      operationId: 'listConsents', tags,
      summary: 'Recorded consents, newest first; filter by session, user or time',
      querystring: ConsentListQuery,
      response: { 200: listOf(ConsentSchema) },
    },
  }, async (request) => listAnswer(request, { sort: 'created_at', order: 'desc' },
    (sort, window) => listConsents(services.connection, scopeOf(request).accountId, request.query, sort, window), toConsent));

  app.get('/consents/:id', {
    config: { auth: 'account' },
    schema: {
      operationId: 'getConsent', tags, summary: 'One consent, with its place in the hash chain',
      params: IdParams,
      response: { 200: Type.Object({ data: ConsentDetailSchema }) },
    },
  }, async (request) => {
    const row = found(await findConsent(db, scopeOf(request).accountId, request.params.id));
    return { data: toConsentDetail(row) };
  });

  app.post('/consents', {
    config: { auth: 'account', admin: true },
    schema: {
      operationId: 'createConsent', tags,
      summary: 'Record a consent server-side (a backend or a mobile app); committed before the answer',
      body: CreateConsentBody,
      response: { 201: Type.Object({ data: ConsentSchema }) },
    },
  }, async (request, reply) => {
    const consent = await recordConsent(services, scopeOf(request).accountId, request.body.consent, visitorContext(request));
    return reply.code(201).send({ data: toConsent(consent) });
  });
};
