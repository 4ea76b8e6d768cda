import { Type } from 'typebox';
import type { CategoryRow } from '../../db/schema.ts';
import { found } from '../../http/app-errors.ts';
import { scopeOf } from '../../http/auth.ts';
import { listAnswer, OLDEST_FIRST } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import { after } from '../../lib/maybe-promise.ts';
import { ValidationErrorList } from '../../http/schemas.ts';
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

const Wrapped = Type.Object({ data: CategorySchema });

export const categoriesRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const categories = resourceRoutes(app, { path: '/categories', tags: ['Categories'], access: ACCOUNT_ACCESS });
  /** Cached rows as answered: a cached category is written out once, not on every read. */
  const answered = new WeakMap<CategoryRow, Category>();

  categories.list({
    operationId: 'listCategories', summary: "The account's cookie categories",
    querystring: CategoryListQuery, item: CategorySchema,
  }, (request) => listAnswer(request, OLDEST_FIRST, (sort, window) => listCategories(db, scopeOf(request).accountId, sort, window), toCategory));

  categories.create({ operationId: 'createCategory', summary: 'Create a category in the account', body: CreateCategoryBody, answer: Wrapped },
    async (request) => ({ data: toCategory(await createCategory(services, scopeOf(request).accountId, request.body.category)) }));

  categories.one({ operationId: 'getCategory', summary: 'One category', answer: Wrapped }, (request) =>
    // A cached account's category is answered without a promise (category-cache.ts says what it measured).
    after(services.categories.find(scopeOf(request).accountId, request.params.id), (row) => {
      const category = found(row);
      let shown = answered.get(category);
      if (!shown) answered.set(category, (shown = toCategory(category)));
      return { data: shown };
    }));

  categories.change({
    operationId: 'updateCategory', summary: 'Change a category; only the fields sent change',
    body: UpdateCategoryBody, answer: Wrapped,
  }, async (request) => ({ data: toCategory(await changeCategory(services, scopeOf(request).accountId, request.params.id, request.body.category)) }));

  categories.remove({
    operationId: 'deleteCategory', summary: 'Delete a category that holds no storage items',
    message: 'Category was deleted successfully', errors: { 422: ValidationErrorList },
  }, (request) => removeCategory(services, scopeOf(request).accountId, request.params.id));
};
