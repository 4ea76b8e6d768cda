import { Type } from 'typebox';
import type { CategoryRow } from '../../db/schema.ts';
import { found } from '../../http/app-errors.ts';
import { scopeOf } from '../../http/auth.ts';
import { listAnswer, listOf } from '../../http/pagination.ts';
import { after } from '../../lib/maybe-promise.ts';
import { IdParams, MessageSchema, ValidationErrorList } from '../../http/schemas.ts';
import type { RoutesPlugin } from '../../services.ts';
import { listCategories } from './categories.repository.ts';
import {
  CategoryListQuery,
  CategorySchema,
  CreateCategoryBody,
  toCategory,
  UpdateCategoryBody,
  type Category,
} from './categories.schema.ts';
import { changeCategory, createCategory, removeCategory } from './categories.service.ts';

const tags = ['Categories'];
const read = { auth: 'account' } as const;
const write = { auth: 'account', admin: true } as const;
const Wrapped = Type.Object({ data: CategorySchema });

export const categoriesRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  /** Cached rows as answered: a cached category is written out once, not on every read. */
  const answered = new WeakMap<CategoryRow, Category>();

  app.get('/categories', {
    config: read,
    schema: {
      operationId: 'listCategories', tags, summary: "The account's cookie categories",
      querystring: CategoryListQuery,
      response: { 200: listOf(CategorySchema) },
    },
  }, async (request) => listAnswer(request, { sort: 'created_at', order: 'asc' },
    (sort, window) => listCategories(db, scopeOf(request).accountId, sort, window), toCategory));

  app.post('/categories', {
    config: write,
    schema: {
      operationId: 'createCategory', tags, summary: 'Create a category in the account',
      body: CreateCategoryBody,
      response: { 201: Wrapped },
    },
  }, async (request, reply) =>
    reply.code(201).send({ data: toCategory(await createCategory(services, scopeOf(request).accountId, request.body.category)) }));

  app.get('/categories/:id', {
    config: read,
    schema: {
      operationId: 'getCategory', tags, summary: 'One category',
      params: IdParams,
      response: { 200: Wrapped },
    },
  }, (request) =>
    // A cached account's category is answered without a promise (category-cache.ts says what it measured).
    after(services.categories.find(scopeOf(request).accountId, request.params.id), (row) => {
      const category = found(row);
      let shown = answered.get(category);
      if (!shown) answered.set(category, (shown = toCategory(category)));
      return { data: shown };
    }));

  app.put('/categories/:id', {
    config: write,
    schema: {
      operationId: 'updateCategory', tags, summary: 'Change a category; only the fields sent change',
      params: IdParams,
      body: UpdateCategoryBody,
      response: { 200: Wrapped },
    },
  }, async (request) => ({ data: toCategory(await changeCategory(services, scopeOf(request).accountId, request.params.id, request.body.category)) }));

  app.delete('/categories/:id', {
    config: write,
    schema: {
      operationId: 'deleteCategory', tags, summary: 'Delete a category that holds no storage items',
      params: IdParams,
      response: { 200: MessageSchema, 422: ValidationErrorList },
    },
  }, async (request) => {
    await removeCategory(services, scopeOf(request).accountId, request.params.id);
    return { message: 'Category was deleted successfully' };
  });
};
