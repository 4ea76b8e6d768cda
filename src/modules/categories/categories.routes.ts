import { Type } from 'typebox';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/kysely.ts';
import type { CategoryRow } from '../../db/schema.ts';
import { found, NotFoundError, ValidationError } from '../../http/app-errors.ts';
import { after } from '../../http/maybe-promise.ts';
import { listOf, offsetWindow, paginate, sortOf } from '../../http/pagination.ts';
import { scopeOf, type RoutesPlugin } from '../../http/routes-plugin.ts';
import { IdParams, MessageSchema, withErrors } from '../../http/schemas.ts';
import { Problems } from '../../http/validate.ts';
import { markVendorsSetup } from '../accounts/onboarding-facts.ts';
import { bumpRevision } from '../banner/banner.service.ts';
import {
  accountLanguage,
  categoryHoldsStorageItems,
  deleteCategory,
  findCategory,
  insertCategory,
  listCategories,
  slugTaken,
  updateCategory,
} from './categories.repository.ts';
import {
  CategoryListQuery,
  CategorySchema,
  CreateCategoryBody,
  toCategory,
  UpdateCategoryBody,
  type Category,
  type CategoryFields,
} from './categories.schema.ts';
import { slugify } from './slug.ts';

const tags = ['Categories'];
const security = [{ bearer: [] }];
const read = { auth: 'account' } as const;
const write = { auth: 'account', admin: true } as const;
const Wrapped = Type.Object({ data: CategorySchema });

export const SLUG_TAKEN = 'Slug has already been taken';
export const CATEGORY_IN_USE = 'Category still holds storage items; move or delete them first';

export const categoriesRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  /** Cached rows as answered: a cached category is written out once, not on every read. */
  const answered = new WeakMap<CategoryRow, Category>();

  /**
   * Trims the texts and settles the slug: the one sent, or (when creating, or when an empty one is
   * sent) the default made from the name. The slug must be free in the account.
   */
  async function clean(accountId: string, fields: CategoryFields, current?: CategoryRow): Promise<CategoryFields> {
    const problems = new Problems();
    const out: CategoryFields = { ...fields };
    if (fields.name !== undefined) out.name = problems.required('name', fields.name);
    if (fields.description !== undefined) out.description = fields.description.trim();
    const name = out.name ?? current?.name ?? '';
    const wantsDefault = !fields.slug && (fields.slug !== undefined || !current);
    if (wantsDefault) out.slug = slugify(name);
    // A slug made from the name is the name's problem: the client sent no slug to blame.
    if (out.slug === '') {
      // A blank name is its own problem.
      if (name !== '') problems.add('name', 'has no letter or digit to make a slug from; send a slug');
    } else if (out.slug !== undefined && (await slugTaken(db, accountId, out.slug, current?.id))) {
      if (wantsDefault) problems.add('name', `has already been taken (its slug ${out.slug} is in use; send another slug)`);
      else problems.add('slug', 'has already been taken');
    }
    problems.throwIfAny();
    return out;
  }

  const rethrowTaken = (error: unknown): never => {
    if (isUniqueViolation(error)) throw new ValidationError(SLUG_TAKEN);
    throw error;
  };

  app.get('/categories', {
    config: read,
    schema: {
      operationId: 'listCategories', tags, security, summary: "The account's cookie categories",
      querystring: CategoryListQuery,
      response: withErrors({ 200: listOf(CategorySchema) }, { 400: 'array' }),
    },
  }, async (request) => {
    const window = offsetWindow(request.query);
    const sort = sortOf(request.query, { sort: 'created_at', order: 'asc' });
    const { rows, count } = await listCategories(db, scopeOf(request).accountId, sort, window);
    return { pagination: paginate(request, window, count), data: rows.map(toCategory) };
  });

  app.post('/categories', {
    config: write,
    schema: {
      operationId: 'createCategory', tags, security, summary: 'Create a category in the account',
      body: CreateCategoryBody,
      response: withErrors({ 201: Wrapped }, { 403: true, 413: true, 415: true, 422: true }),
    },
  }, async (request, reply) => {
    const { accountId } = scopeOf(request);
    const fields = await clean(accountId, request.body.category);
    const default_language = fields.default_language ?? (await accountLanguage(db, accountId));
    const row = await db
      .transaction()
      .execute(async (trx) => {
        const created = await insertCategory(trx, accountId, { ...fields, name: fields.name!, slug: fields.slug!, default_language });
        await markVendorsSetup(trx, accountId);
        // Visitors were asked about the categories there were: a new one asks them again.
        await bumpRevision(trx, accountId);
        return created;
      })
      .catch(rethrowTaken);
    await services.forgetCategories([accountId]);
    return reply.code(201).send({ data: toCategory(row) });
  });

  app.get('/categories/:id', {
    config: read,
    schema: {
      operationId: 'getCategory', tags, security, summary: 'One category',
      params: IdParams,
      response: withErrors({ 200: Wrapped }, { 404: true }),
    },
  }, (request) =>
    // A cached account's category is answered without a promise.
    after(services.categories.find(scopeOf(request).accountId, request.params.id), (row) => {
      const category = found(row);
      let shown = answered.get(category);
      if (!shown) answered.set(category, (shown = toCategory(category)));
      return { data: shown };
    }));

  app.put('/categories/:id', {
    config: write,
    schema: {
      operationId: 'updateCategory', tags, security, summary: 'Change a category; only the fields sent change',
      params: IdParams,
      body: UpdateCategoryBody,
      response: withErrors({ 200: Wrapped }, { 403: true, 404: true, 413: true, 415: true, 422: true }),
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const current = found(await findCategory(db, accountId, request.params.id));
    const fields = await clean(accountId, request.body.category, current);
    const row = await updateCategory(db, accountId, current.id, fields).catch(rethrowTaken);
    await services.forgetCategories([accountId]);
    if (!row) throw new NotFoundError();
    return { data: toCategory(row) };
  });

  app.delete('/categories/:id', {
    config: write,
    schema: {
      operationId: 'deleteCategory', tags, security, summary: 'Delete a category that holds no storage items',
      params: IdParams,
      response: withErrors({ 200: MessageSchema }, { 403: true, 404: true, 422: true }),
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const { id } = request.params;
    if (!(await findCategory(db, accountId, id))) throw new NotFoundError();
    if (await categoryHoldsStorageItems(db, accountId, id)) throw new ValidationError(CATEGORY_IN_USE);
    const deleted = await db
      .transaction()
      .execute(async (trx) => {
        const gone = await deleteCategory(trx, accountId, id);
        if (gone) await bumpRevision(trx, accountId);
        return gone;
      })
      .catch((error: unknown) => {
        // A storage item moved into it between the check and the delete.
        if (isForeignKeyViolation(error)) throw new ValidationError(CATEGORY_IN_USE);
        throw error;
      });
    await services.forgetCategories([accountId]);
    if (!deleted) throw new NotFoundError();
    return { message: 'Category was deleted successfully' };
  });
};
