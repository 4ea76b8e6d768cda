import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { listAnswer, OLDEST_FIRST } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf, scopeOf } from '../../http/auth.ts';
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

const Wrapped = Type.Object({ data: StorageItemSchema });
const ClassifyAnswer = Type.Object({
  data: Type.Object({
    processing: Type.Integer({ description: 'Uncategorised drafts handed to the AI; each is `processing` until it has worked on it' }),
  }),
});

export const storageItemsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const items = resourceRoutes(app, { path: '/storage-items', tags: ['Storage items'], access: ACCOUNT_ACCESS });

  items.list({
    operationId: 'listStorageItems',
    summary: "The account's cookies and storage entries; filter by category (or none), status, storage type or who added them",
    querystring: StorageItemListQuery, item: StorageItemSchema,
  }, (request) => listAnswer(request, OLDEST_FIRST,
    (sort, window) => listStorageItems(db, scopeOf(request).accountId, request.query, sort, window), toStorageItem));

  items.create({
    operationId: 'createStorageItem', summary: 'Add a cookie or storage entry to the account',
    body: CreateStorageItemBody, answer: Wrapped,
  }, async (request) => {
    const row = await createStorageItem(db, scopeOf(request).accountId, request.body.storage_item, actorOf(principalOf(request)));
    await services.forgetBanner([row.account_id]);
    services.ai.submit(row);
    return { data: toStorageItem(row) };
  });

  items.route('POST', '/classify', {
    rule: 'write', operationId: 'classifyStorageItems',
    summary: "Classify now: run the AI on the account's uncategorised draft items, or on those of `ids` (needs auto_categorise on)",
    body: ClassifyBody, response: { 202: ClassifyAnswer },
  }, async (request, reply) => {
    const rows = await takeUncategorisedForAi(db, scopeOf(request).accountId, request.body?.ids);
    for (const row of rows) services.ai.submit(row);
    return reply.code(202).send({ data: { processing: rows.length } });
  });

  items.route('POST', '/approve', {
    rule: 'write', operationId: 'approveStorageItems',
    summary: 'Approve several items at once: each one with a category that is a draft or in review is finalised',
    body: ApproveBody, response: { 200: ApproveAnswer },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const result = await approveStorageItems(db, accountId, request.body.ids, actorOf(principalOf(request)));
    if (result.approved.length > 0) await services.forgetBanner([accountId]);
    return { data: result };
  });

  items.one({ operationId: 'getStorageItem', summary: 'One storage item', answer: Wrapped },
    async (request) => ({ data: toStorageItem(found(await findStorageItem(db, scopeOf(request).accountId, request.params.id))) }));

  items.change({
    operationId: 'updateStorageItem',
    summary: 'Change a storage item; only the fields sent change. Finalising records who approved it',
    body: UpdateStorageItemBody, answer: Wrapped,
  }, async (request) => {
    const actor = actorOf(principalOf(request));
    const row = await changeStorageItem(db, scopeOf(request).accountId, request.params.id, request.body.storage_item, actor);
    await services.forgetBanner([row.account_id]);
    services.ai.submit(row);
    return { data: toStorageItem(row) };
  });

  items.remove({ operationId: 'deleteStorageItem', summary: 'Delete a storage item', message: 'Storage item was deleted successfully' }, async (request) => {
    await removeStorageItem(db, scopeOf(request).accountId, request.params.id);
    await services.forgetBanner([scopeOf(request).accountId]);
  });
};
