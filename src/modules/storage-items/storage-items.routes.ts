import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { listAnswer, listOf } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf, scopeOf } from '../../http/auth.ts';
import { IdParams, MessageSchema } from '../../http/schemas.ts';
import { findStorageItem, listStorageItems } from './storage-items.repository.ts';
import {
  ApproveAnswer,
  ApproveBody,
  ClassifyBody,
  CreateStorageItemBody,
  StorageItemListQuery,
  StorageItemSchema,
  toStorageItem,
  UpdateStorageItemBody,
} from './storage-items.schema.ts';
import {
  actorOf,
  approveStorageItems,
  changeStorageItem,
  createStorageItem,
  removeStorageItem,
  takeUncategorisedForAi,
} from './storage-items.service.ts';

const tags = ['Storage items'];
const read = { auth: 'account' } as const;
const write = { auth: 'account', admin: true } as const;
const Wrapped = Type.Object({ data: StorageItemSchema });
const ClassifyAnswer = Type.Object({
  data: Type.Object({
    processing: Type.Integer({ description: 'Uncategorised drafts handed to the AI; each is `processing` until it has worked on it' }),
  }),
});

export const storageItemsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/storage-items', {
    config: read,
    schema: {
      operationId: 'listStorageItems', tags,
      summary: "The account's cookies and storage entries; filter by category (or none), status, storage type or who added them",
      querystring: StorageItemListQuery,
      response: { 200: listOf(StorageItemSchema) },
    },
  }, async (request) => listAnswer(request, { sort: 'created_at', order: 'asc' },
    (sort, window) => listStorageItems(db, scopeOf(request).accountId, request.query, sort, window), toStorageItem));

  app.post('/storage-items', {
    config: write,
    schema: {
      operationId: 'createStorageItem', tags, summary: 'Add a cookie or storage entry to the account',
      body: CreateStorageItemBody,
      response: { 201: Wrapped },
    },
  }, async (request, reply) => {
    const actor = actorOf(principalOf(request));
    const row = await createStorageItem(db, scopeOf(request).accountId, request.body.storage_item, actor);
    await services.forgetBanner([row.account_id]);
    services.ai.submit(row);
    return reply.code(201).send({ data: toStorageItem(row) });
  });

  app.post('/storage-items/classify', {
    config: write,
    schema: {
      operationId: 'classifyStorageItems', tags,
      summary: "Classify now: run the AI on the account's uncategorised draft items, or on those of `ids` (needs auto_categorise on)",
      body: ClassifyBody,
      response: { 202: ClassifyAnswer },
    },
  }, async (request, reply) => {
    const rows = await takeUncategorisedForAi(db, scopeOf(request).accountId, request.body?.ids);
    for (const row of rows) services.ai.submit(row);
    return reply.code(202).send({ data: { processing: rows.length } });
  });

  app.post('/storage-items/approve', {
    config: write,
    schema: {
      operationId: 'approveStorageItems', tags,
      summary: 'Approve several items at once: each one with a category that is a draft or in review is finalised',
      body: ApproveBody,
      response: { 200: ApproveAnswer },
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const result = await approveStorageItems(db, accountId, request.body.ids, actorOf(principalOf(request)));
    if (result.approved.length > 0) await services.forgetBanner([accountId]);
    return { data: result };
  });

  app.get('/storage-items/:id', {
    config: read,
    schema: {
      operationId: 'getStorageItem', tags, summary: 'One storage item',
      params: IdParams,
      response: { 200: Wrapped },
    },
  }, async (request) => {
    const row = found(await findStorageItem(db, scopeOf(request).accountId, request.params.id));
    return { data: toStorageItem(row) };
  });

  app.put('/storage-items/:id', {
    config: write,
    schema: {
      operationId: 'updateStorageItem', tags,
      summary: 'Change a storage item; only the fields sent change. Finalising records who approved it',
      params: IdParams,
      body: UpdateStorageItemBody,
      response: { 200: Wrapped },
    },
  }, async (request) => {
    const actor = actorOf(principalOf(request));
    const row = await changeStorageItem(db, scopeOf(request).accountId, request.params.id, request.body.storage_item, actor);
    await services.forgetBanner([row.account_id]);
    services.ai.submit(row);
    return { data: toStorageItem(row) };
  });

  app.delete('/storage-items/:id', {
    config: write,
    schema: {
      operationId: 'deleteStorageItem', tags, summary: 'Delete a storage item',
      params: IdParams,
      response: { 200: MessageSchema },
    },
  }, async (request) => {
    await removeStorageItem(db, scopeOf(request).accountId, request.params.id);
    await services.forgetBanner([scopeOf(request).accountId]);
    return { message: 'Storage item was deleted successfully' };
  });
};
