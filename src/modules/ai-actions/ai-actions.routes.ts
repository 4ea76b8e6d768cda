import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { listAnswer, OLDEST_FIRST } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { ValidationErrorList } from '../../http/schemas.ts';
import type { AiActionRow } from '../../db/schema.ts';
import { findAiAction, listAiActions } from './ai-actions.repository.ts';
import { AiActionListQuery, AiActionSchema, toAiAction } from './ai-actions.schema.ts';
import { acceptAction, rejectAction, revertAction } from './ai-actions.service.ts';

const One = Type.Object({ data: AiActionSchema });

export const aiActionsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const actions = resourceRoutes(app, { path: '/ai-actions', tags: ['AI actions'], access: ACCOUNT_ACCESS });

  /**
   * What a person decides on an action: the service that does it (422 when the action is past it) and
   * the caches it leaves stale. Accepting may create a category; a revert undoes either kind of change.
   */
  const decisions = [{
    action: 'revert', operationId: 'revertAiAction', decide: revertAction,
    summary: 'Undo an action: fields still holding the AI\'s values get their previous values back',
    forget: (accountId: string, row: AiActionRow) =>
      row.actionable_type === 'Category' ? services.forgetCategories([accountId]) : services.forgetBanner([accountId]),
  }, {
    action: 'accept', operationId: 'acceptAiAction', decide: acceptAction,
    summary: 'Apply a suggested category: the item moves to the account\'s category of that meaning (created if none matches)',
    forget: (accountId: string) => services.forgetCategories([accountId]),
  }, {
    action: 'reject', operationId: 'rejectAiAction', decide: rejectAction,
    summary: 'Turn down a suggestion the AI did not apply; the AI does not suggest it for that item again',
    forget: async () => {},
  }];

  actions.list({
    operationId: 'listAiActions', summary: 'Everything the AI did to the account\'s categories and storage items',
    querystring: AiActionListQuery, item: AiActionSchema,
  }, (request) => listAnswer(request, OLDEST_FIRST,
    (sort, window) => listAiActions(db, scopeOf(request).accountId, request.query, sort, window), toAiAction));

  actions.one({ operationId: 'getAiAction', summary: 'One AI action', answer: One },
    async (request) => ({ data: toAiAction(found(await findAiAction(db, scopeOf(request).accountId, request.params.id))) }));

  for (const { action, operationId, summary, decide, forget } of decisions) {
    actions.act(action, { operationId, summary, answer: One, errors: { 422: ValidationErrorList } }, async (request) => {
      const { accountId } = scopeOf(request);
      const decided = await decide(db, accountId, request.params.id);
      await forget(accountId, decided);
      return { data: toAiAction(decided) };
    });
  }
};
