import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { listAnswer, listOf } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { IdParams, ValidationErrorList } from '../../http/schemas.ts';
import { findAiAction, listAiActions } from './ai-actions.repository.ts';
import { AiActionListQuery, AiActionSchema, toAiAction } from './ai-actions.schema.ts';
import { acceptAction, rejectAction, revertAction } from './ai-actions.service.ts';

const tags = ['AI actions'];
const One = Type.Object({ data: AiActionSchema });

export const aiActionsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/ai-actions', {
    config: { auth: 'account' },
    schema: {
      operationId: 'listAiActions', tags,
      summary: 'Everything the AI did to the account\'s categories and storage items',
      querystring: AiActionListQuery,
      response: { 200: listOf(AiActionSchema) },
    },
  }, async (request) => listAnswer(request, { sort: 'created_at', order: 'asc' },
    (sort, window) => listAiActions(db, scopeOf(request).accountId, request.query, sort, window), toAiAction));

  app.get('/ai-actions/:id', {
    config: { auth: 'account' },
    schema: {
      operationId: 'getAiAction', tags, summary: 'One AI action',
      params: IdParams,
      response: { 200: One },
    },
  }, async (request) => {
    const row = found(await findAiAction(db, scopeOf(request).accountId, request.params.id));
    return { data: toAiAction(row) };
  });

  app.post('/ai-actions/:id/revert', {
    config: { auth: 'account', admin: true },
    schema: {
      operationId: 'revertAiAction', tags,
      summary: 'Undo an action: fields still holding the AI\'s values get their previous values back',
      params: IdParams,
      response: { 200: One, 422: ValidationErrorList },
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const reverted = await revertAction(db, accountId, request.params.id);
    if (reverted.actionable_type === 'Category') await services.forgetCategories([accountId]);
    else await services.forgetBanner([accountId]);
    return { data: toAiAction(reverted) };
  });

  app.post('/ai-actions/:id/accept', {
    config: { auth: 'account', admin: true },
    schema: {
      operationId: 'acceptAiAction', tags,
      summary: 'Apply a suggested category: the item moves to the account\'s category of that meaning (created if none matches)',
      params: IdParams,
      response: { 200: One, 422: ValidationErrorList },
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const accepted = await acceptAction(db, accountId, request.params.id);
    await services.forgetCategories([accountId]);
    return { data: toAiAction(accepted) };
  });

  app.post('/ai-actions/:id/reject', {
    config: { auth: 'account', admin: true },
    schema: {
      operationId: 'rejectAiAction', tags,
      summary: 'Turn down a suggestion the AI did not apply; the AI does not suggest it for that item again',
      params: IdParams,
      response: { 200: One, 422: ValidationErrorList },
    },
  }, async (request) => {
    const rejected = await rejectAction(db, scopeOf(request).accountId, request.params.id);
    return { data: toAiAction(rejected) };
  });
};
