import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { scopeOf } from '../../http/auth.ts';
import { listAnswer, offsetWindow, OLDEST_FIRST, paginate, sortOf } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import { IdParams, ValidationErrorList } from '../../http/schemas.ts';
import { listOf } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { findEndpoint, listDeliveries, listEndpoints } from './webhooks.repository.ts';
import {
  CreateWebhookBody,
  DeliveryListQuery,
  DeliveryParams,
  DeliverySchema,
  toDelivery,
  toWebhook,
  UpdateWebhookBody,
  WebhookListQuery,
  WebhookSchema,
  WebhookWithSecret,
  WrappedWebhook,
} from './webhooks.schema.ts';
import { changeEndpoint, createEndpoint, messageIdOf, removeEndpoint, resendDeliveryOf, rotateSecret } from './webhooks.service.ts';

const NEWEST_FIRST = { sort: 'created_at', order: 'desc' } as const;

export const webhooksRoutes: RoutesPlugin = async (app, { services }) => {
  const { db, config } = services;
  const webhooks = resourceRoutes(app, { path: '/webhooks', tags: ['Webhooks'], access: ACCOUNT_ACCESS });
  const changed = () => services.webhooks.changed();

  webhooks.list({
    operationId: 'listWebhooks', summary: "The account's webhook endpoints (never their secrets)",
    querystring: WebhookListQuery, item: WebhookSchema,
  }, (request) => listAnswer(request, OLDEST_FIRST, (sort, window) => listEndpoints(db, scopeOf(request).accountId, sort, window), toWebhook));

  webhooks.create({
    operationId: 'createWebhook',
    summary: 'Add a webhook endpoint: an https URL and the events it wants; its signing secret is answered this once',
    body: CreateWebhookBody, answer: WebhookWithSecret, errors: { 422: ValidationErrorList },
  }, async (request) => {
    const { row, secret } = await createEndpoint(db, config, scopeOf(request).accountId, request.body.webhook);
    await changed();
    return { data: toWebhook(row), secret };
  });

  webhooks.one({ operationId: 'getWebhook', summary: 'One webhook endpoint', answer: WrappedWebhook }, async (request) =>
    ({ data: toWebhook(found(await findEndpoint(db, scopeOf(request).accountId, request.params.id))) }));

  webhooks.change({
    method: 'PATCH', operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint; only the fields sent change. Enabling a disabled one resumes its deliveries',
    body: UpdateWebhookBody, answer: WrappedWebhook, errors: { 422: ValidationErrorList },
  }, async (request) => {
    const row = await changeEndpoint(db, config, scopeOf(request).accountId, request.params.id, request.body.webhook);
    await changed();
    return { data: toWebhook(row) };
  });

  webhooks.remove({ operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its delivery log', message: 'Webhook was deleted successfully' },
    async (request) => {
      await removeEndpoint(db, scopeOf(request).accountId, request.params.id);
      await changed();
    });

  webhooks.act('rotate-secret', {
    operationId: 'rotateWebhookSecret', summary: 'Replace the signing secret; the new one is answered this once and signs every delivery from now on',
    answer: WebhookWithSecret,
  }, async (request) => {
    const { row, secret } = await rotateSecret(db, scopeOf(request).accountId, request.params.id);
    return { data: toWebhook(row), secret };
  });

  webhooks.route('GET', '/:id/deliveries', {
    rule: 'read', operationId: 'listWebhookDeliveries',
    summary: "The endpoint's delivery log, newest first: each event's status, response code, attempts and next attempt",
    params: IdParams, querystring: DeliveryListQuery, response: { 200: listOf(DeliverySchema) },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const endpoint = found(await findEndpoint(db, accountId, request.params.id));
    const window = offsetWindow(request.query);
    const { rows, count } = await listDeliveries(db, accountId, endpoint.id, request.query, sortOf(request.query, NEWEST_FIRST), window);
    const pagination = paginate(request, window, count);
    // The links name the route as the router knows it (`:id`): this list is the one with a path parameter.
    const own = (link: string) => link.replace('/webhooks/:id/', `/webhooks/${endpoint.id}/`);
    return {
      pagination: { ...pagination, prev_url: own(pagination.prev_url), next_url: own(pagination.next_url) },
      data: rows.map((row) => toDelivery(row, messageIdOf(row.id))),
    };
  });

  webhooks.route('POST', '/:id/deliveries/:delivery_id/retry', {
    rule: 'write', operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again (any status): it is due now and retried for a new window',
    params: DeliveryParams, response: { 200: Type.Object({ data: DeliverySchema }) },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const row = await resendDeliveryOf(db, config, accountId, request.params.id, request.params.delivery_id);
    services.webhooks.wake();
    return { data: toDelivery(row, messageIdOf(row.id)) };
  });
};
