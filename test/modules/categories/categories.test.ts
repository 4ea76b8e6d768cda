import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import type { CategoryRow } from '../../../src/db/schema.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { walkPages } from '../../helpers/pages.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [a, b] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Alpha', 'Beta'] });

const api = (method: string, url: string, token?: string, body?: unknown) => call(t.app, method, url, { token, body });
const errors = (code: number, message: string) => ({ errors: [{ code, message }] });
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The contract's category, written out from a stored row. */
const categoryJson = (row: CategoryRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  slug: row.slug,
  required: row.required,
  published: row.published,
  sale_or_sharing: row.sale_or_sharing,
  default_language: row.default_language,
  translations: row.translations,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

const stored = (id: string) => t.services.db.selectFrom('categories').selectAll().where('id', '=', id).executeTakeFirst();
const categoriesOf = (accountId: string) =>
  t.services.db.selectFrom('categories').selectAll().where('account_id', '=', accountId).orderBy('id').execute();

async function createCategory(token: string, category: Record<string, unknown>) {
  const res = await api('POST', '/api/v1/categories', token, { category });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as ReturnType<typeof categoryJson>;
}

describe('POST /categories', () => {
  it('creates a category with every field and answers it wrapped with 201', async () => {
    const res = await api('POST', '/api/v1/categories', a.tokens.account, {
      category: {
        name: '  Analytics  ', slug: 'web_analytics', description: ' Counts visits. ', required: true, default_language: 'de-CH',
        translations: { fr: { name: ' Statistiques ', description: 'Compte les visites.' } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(UUID),
        name: 'Analytics',
        description: 'Counts visits.',
        slug: 'web_analytics',
        required: true,
        published: true,
        sale_or_sharing: false,
        default_language: 'de-CH',
        translations: { fr: { name: 'Statistiques', description: 'Compte les visites.' } },
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });
    const row = await stored(res.body.data.id);
    expect(row!.account_id).toBe(a.account.id);
    expect(categoryJson(row!)).toEqual(res.body.data);
  });

  it("fills the defaults: slug from the name, empty description, not required, the account's language", async () => {
    const tenant = await createTenant(t.services, 'Lingua');
    await t.services.db.updateTable('accounts').set({ default_language: 'fr' }).where('id', '=', tenant.account.id).execute();
    const res = await api('POST', '/api/v1/categories', tenant.tokens.admin, { category: { name: 'Marketing & Ads' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Marketing & Ads', slug: 'marketing-ads', description: '', required: false, default_language: 'fr' });
  });

  it('marks the account as having vendors set up', async () => {
    const tenant = await createTenant(t.services, 'Onboard');
    const status = async () => (await api('GET', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.account)).body.onboarding_status;
    expect(await status()).toBe('account_created');
    await createCategory(tenant.tokens.account, { name: 'Necessary' });
    expect(await status()).toBe('vendors_setup');
  });

  it.each([
    ['an empty name', { name: '' }],
    ['a whitespace name', { name: ' \t ' }],
    ['no name', { slug: 'nameless' }],
  ])('refuses %s with 422 and stores nothing', async (_, category) => {
    const before = await categoriesOf(a.account.id);
    const res = await api('POST', '/api/v1/categories', a.tokens.account, { category });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid("Name can't be blank"));
    expect(await categoriesOf(a.account.id)).toEqual(before);
  });

  it.each([
    ['a name too long', { name: 'x'.repeat(256) }, 'Name is too long (maximum is 255 characters)'],
    ['a description too long', { name: 'D', description: 'x'.repeat(2001) }, 'Description is too long (maximum is 2000 characters)'],
    ['a number as name', { name: 7 }, 'Name is invalid'],
    ['a text as required', { name: 'R', required: 'yes' }, 'Required is invalid'],
    ['a language that is no code', { name: 'L', default_language: 'English' }, 'Default language is invalid'],
  ])('refuses %s with 422', async (_, category, message) => {
    const res = await api('POST', '/api/v1/categories', a.tokens.account, { category });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid(message));
  });

  it.each([
    ['no category', { name: 'Loose' }, "Category can't be blank"],
    ['a text as category', { category: 'Loose' }, 'Category is invalid'],
  ])('refuses a body with %s with 422', async (_, body, message) => {
    const res = await api('POST', '/api/v1/categories', a.tokens.account, body);
    expect(res).toMatchObject({ status: 422, body: invalid(message) });
  });

  it('takes a name of exactly 255 characters', async () => {
    const created = await createCategory(a.tokens.account, { name: 'n'.repeat(255), slug: 'long-name' });
    expect(created.name).toHaveLength(255);
  });
});

describe('slugs', () => {
  it.each([
    ['Marketing & Ads', 'marketing-ads'],
    ['  Social   Media!  ', 'social-media'],
    ['Préférences', 'preferences'],
    ['A/B tests_2024', 'a-b-tests-2024'],
    ['--Strictly--Necessary--', 'strictly-necessary'],
    ['Ünïcödé Çatégory', 'unicode-category'],
  ])('makes %j into %j', async (name, slug) => {
    const tenant = await createTenant(t.services, 'Slugs');
    expect((await createCategory(tenant.tokens.account, { name })).slug).toBe(slug);
  });

  it('cuts a long default to 64 characters, never ending on a dash', async () => {
    const created = await createCategory(a.tokens.account, { name: 'abcd '.repeat(14) });
    expect(created.slug).toBe(`${'abcd-'.repeat(12)}abcd`);
    expect(created.slug).toHaveLength(64);
    const cutOnDash = await createCategory(a.tokens.account, { name: `${'x'.repeat(63)} tail` });
    expect(cutOnDash.slug).toBe('x'.repeat(63));
  });

  it('takes an empty slug as a request for the default', async () => {
    expect((await createCategory(a.tokens.account, { name: 'Empty Slug', slug: '' })).slug).toBe('empty-slug');
  });

  it.each(['social_media', 'a-1', 'x', 'x'.repeat(64), 'ab_cd-ef'])('accepts the slug %j', async (slug) => {
    const tenant = await createTenant(t.services, 'Good slugs');
    expect((await createCategory(tenant.tokens.account, { name: 'Any', slug })).slug).toBe(slug);
  });

  it.each(['Bad', 'has space', '-lead', 'trail-', 'double--dash', 'a_-b', 'ünï', ' padded', 'dot.ted'])(
    'refuses the slug %j with 422 Slug is invalid',
    async (slug) => {
      const res = await api('POST', '/api/v1/categories', a.tokens.account, { category: { name: 'Any', slug } });
      expect(res).toMatchObject({ status: 422, body: invalid('Slug is invalid') });
    },
  );

  it('refuses a slug longer than 64 characters', async () => {
    const res = await api('POST', '/api/v1/categories', a.tokens.account, { category: { name: 'Any', slug: 'x'.repeat(65) } });
    expect(res).toMatchObject({ status: 422, body: invalid('Slug is too long (maximum is 64 characters)') });
  });

  it('asks for a slug when the name has no letter or digit to make one from', async () => {
    const res = await api('POST', '/api/v1/categories', a.tokens.account, { category: { name: '!!! ???' } });
    expect(res).toMatchObject({ status: 422, body: invalid('Name has no letter or digit to make a slug from; send a slug') });
    expect((await createCategory(a.tokens.account, { name: '!!! ???', slug: 'punctuation' })).name).toBe('!!! ???');
  });

  it('keeps slugs unique in an account, sent or made from the name; another account may reuse them', async () => {
    const tenant = await createTenant(t.services, 'Unique');
    await createCategory(tenant.tokens.account, { name: 'Functional' });
    const sameName = await api('POST', '/api/v1/categories', tenant.tokens.account, { category: { name: 'Functional' } });
    expect(sameName).toMatchObject({ status: 422, body: invalid('Name has already been taken (its slug functional is in use; send another slug)') });
    const sameSlug = await api('POST', '/api/v1/categories', tenant.tokens.account, { category: { name: 'Other', slug: 'functional' } });
    expect(sameSlug).toMatchObject({ status: 422, body: invalid('Slug has already been taken') });
    expect(await categoriesOf(tenant.account.id)).toHaveLength(1);
    expect((await createCategory(b.tokens.account, { name: 'Functional' })).slug).toBe('functional');
  });

  it('reports every problem of a request at once', async () => {
    await createCategory(a.tokens.account, { name: 'Holder', slug: 'held' });
    const res = await api('POST', '/api/v1/categories', a.tokens.account, { category: { name: ' ', slug: 'held' } });
    expect(res).toMatchObject({ status: 422, body: invalid("Name can't be blank", 'Slug has already been taken') });
  });
});

describe('GET /categories/{id}', () => {
  it('answers the category wrapped', async () => {
    const created = await createCategory(a.tokens.account, { name: 'Readable' });
    const res = await api('GET', `/api/v1/categories/${created.id}`, a.tokens.member);
    expect(res).toMatchObject({ status: 200, body: { data: created } });
    expect(res.body).toEqual({ data: categoryJson((await stored(created.id))!) });
  });

  it("answers 404 for another account's category, an unknown id and a non-id", async () => {
    const theirs = await createCategory(b.tokens.account, { name: 'Theirs' });
    for (const id of [theirs.id, randomUUID(), 'not-an-id']) {
      const res = await api('GET', `/api/v1/categories/${id}`, a.tokens.account);
      expect([id, res.status, res.body]).toEqual([id, 404, errors(404, 'Record not found')]);
    }
  });

  it('shows a change or a deletion at once, to reads and to the consents that name the category', async () => {
    const created = await createCategory(a.tokens.account, { name: 'Cached' });
    const consent = (preferences: object) =>
      api('POST', '/api/v1/consents', a.tokens.account, { consent: { session_id: 'cache', user_preferences: { accept_type: 'custom', ...preferences } } });
    expect((await api('GET', `/api/v1/categories/${created.id}`, a.tokens.account)).body.data.name).toBe('Cached');
    expect((await consent({ rejected_categories: [created.id] })).status).toBe(201);

    await api('PUT', `/api/v1/categories/${created.id}`, a.tokens.admin, { category: { name: 'Changed', required: true } });
    expect((await api('GET', `/api/v1/categories/${created.id}`, a.tokens.account)).body.data).toMatchObject({ name: 'Changed', required: true });
    expect(await consent({ rejected_categories: [created.id] })).toMatchObject({
      status: 422, body: invalid('Rejected categories cannot include a required category'),
    });

    await api('DELETE', `/api/v1/categories/${created.id}`, a.tokens.admin);
    expect((await api('GET', `/api/v1/categories/${created.id}`, a.tokens.account)).status).toBe(404);
    expect(await consent({ accepted_categories: [created.id] })).toMatchObject({ status: 422, body: invalid('Accepted categories must exist') });
  });
});

describe('PUT /categories/{id}', () => {
  it('changes only the fields sent, keeps the slug when the name changes, and moves updated_at', async () => {
    const created = await createCategory(a.tokens.account, { name: 'Before', description: 'Old', required: true });
    const res = await api('PUT', `/api/v1/categories/${created.id}`, a.tokens.admin, { category: { name: ' After ', description: 'New' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ...created, name: 'After', description: 'New', updated_at: expect.stringMatching(ISO) } });
    expect(res.body.data.updated_at >= created.updated_at).toBe(true);
    expect(categoryJson((await stored(created.id))!)).toEqual(res.body.data);
  });

  it('sets a new slug, keeps its own, re-makes it from the name when sent empty', async () => {
    const created = await createCategory(a.tokens.account, { name: 'Renamed later' });
    const own = await api('PUT', `/api/v1/categories/${created.id}`, a.tokens.account, { category: { slug: 'renamed-later', required: true } });
    expect(own.body.data).toMatchObject({ slug: 'renamed-later', required: true });
    const set = await api('PUT', `/api/v1/categories/${created.id}`, a.tokens.account, { category: { slug: 'chosen_slug' } });
    expect(set.body.data.slug).toBe('chosen_slug');
    const remade = await api('PUT', `/api/v1/categories/${created.id}`, a.tokens.account, { category: { name: 'Fresh Name', slug: '' } });
    expect(remade.body.data).toMatchObject({ name: 'Fresh Name', slug: 'fresh-name' });
  });

  it("refuses another category's slug, a blank name and a bad slug, and changes nothing", async () => {
    await createCategory(a.tokens.account, { name: 'Taken', slug: 'taken' });
    const created = await createCategory(a.tokens.account, { name: 'Mover' });
    const before = await stored(created.id);
    for (const [category, body] of [
      [{ slug: 'taken' }, invalid('Slug has already been taken')],
      [{ name: '  ' }, invalid("Name can't be blank")],
      [{ slug: 'Not A Slug' }, invalid('Slug is invalid')],
      [{ default_language: 'xx_YY' }, invalid('Default language is invalid')],
    ] as const) {
      const res = await api('PUT', `/api/v1/categories/${created.id}`, a.tokens.account, { category });
      expect([category, res.status, res.body]).toEqual([category, 422, body]);
    }
    expect(await stored(created.id)).toEqual(before);
  });

  it("answers 404 for another account's category and leaves it alone", async () => {
    const theirs = await createCategory(b.tokens.account, { name: 'Guarded' });
    const res = await api('PUT', `/api/v1/categories/${theirs.id}`, a.tokens.account, { category: { name: 'Stolen' } });
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    expect((await stored(theirs.id))!.name).toBe('Guarded');
  });
});

describe('DELETE /categories/{id}', () => {
  it('deletes an empty category', async () => {
    const created = await createCategory(a.tokens.account, { name: 'Doomed' });
    const res = await api('DELETE', `/api/v1/categories/${created.id}`, a.tokens.admin);
    expect(res).toMatchObject({ status: 200, body: { message: 'Category was deleted successfully' } });
    expect(await stored(created.id)).toBeUndefined();
    expect((await api('GET', `/api/v1/categories/${created.id}`, a.tokens.account)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/categories/${created.id}`, a.tokens.account)).status).toBe(404);
  });

  it('refuses while the category holds storage items, then deletes once they are gone', async () => {
    const created = await createCategory(a.tokens.account, { name: 'Holding' });
    const item = await api('POST', '/api/v1/storage-items', a.tokens.account, { storage_item: { name: 'held', category_id: created.id } });
    expect(item.status).toBe(201);
    const refused = await api('DELETE', `/api/v1/categories/${created.id}`, a.tokens.account);
    expect(refused).toMatchObject({ status: 422, body: invalid('Category still holds storage items; move or delete them first') });
    expect(await stored(created.id)).toBeDefined();
    await api('PUT', `/api/v1/storage-items/${item.body.data.id}`, a.tokens.account, { storage_item: { category_id: null } });
    expect((await api('DELETE', `/api/v1/categories/${created.id}`, a.tokens.account)).status).toBe(200);
  });

  it("answers 404 for another account's category and keeps it", async () => {
    const theirs = await createCategory(b.tokens.account, { name: 'Kept' });
    const res = await api('DELETE', `/api/v1/categories/${theirs.id}`, a.tokens.account);
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    expect(await stored(theirs.id)).toBeDefined();
  });
});

describe('who may call /categories', () => {
  it('lets a non-admin member read but not write', async () => {
    const created = await createCategory(a.tokens.account, { name: 'Members see' });
    const before = await stored(created.id);
    expect((await api('GET', '/api/v1/categories', a.tokens.member)).status).toBe(200);
    expect((await api('GET', `/api/v1/categories/${created.id}`, a.tokens.member)).status).toBe(200);
    const count = (await categoriesOf(a.account.id)).length;
    for (const [method, url, body] of [
      ['POST', '/api/v1/categories', { category: { name: 'Member made' } }],
      ['PUT', `/api/v1/categories/${created.id}`, { category: { name: 'Member changed' } }],
      ['DELETE', `/api/v1/categories/${created.id}`, undefined],
    ] as const) {
      const res = await api(method, url, a.tokens.member, body);
      expect([method, res.status, res.body]).toEqual([method, 403, errors(403, 'User must be an admin of this account')]);
    }
    expect(await stored(created.id)).toEqual(before);
    expect(await categoriesOf(a.account.id)).toHaveLength(count);
  });

  it('lets a user token name its account with account_id, and carries it in the links', async () => {
    const tenant = await createTenant(t.services, 'Named');
    for (const name of ['One', 'Two']) await createCategory(tenant.tokens.account, { name });
    const url = `/api/v1/categories?account_id=${tenant.account.id}&limit=1`;
    const res = await api('GET', url, tenant.tokens.admin);
    expect(res.status).toBe(200);
    expect(res.body.pagination.next_url).toBe(`/api/v1/categories?page=2&account_id=${tenant.account.id}&limit=1`);
    const other = await api('GET', `/api/v1/categories?account_id=${b.account.id}`, tenant.tokens.admin);
    expect(other).toMatchObject({ status: 401, body: errors(401, 'API key must belong to an account') });
  });
});

describe('GET /categories', () => {
  let tenant: Tenant;
  let made: ReturnType<typeof categoryJson>[];
  beforeAll(async () => {
    tenant = await createTenant(t.services, 'Lister');
    made = [];
    for (const name of ['Cherry', 'Apple', 'Elder', 'Banana', 'Date']) made.push(await createCategory(tenant.tokens.account, { name }));
  });
  const list = (query = '') => api('GET', `/api/v1/categories${query}`, tenant.tokens.account);
  const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((c) => c.name);

  it("lists the account's own categories, oldest first, in the pagination envelope", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pagination: { prev_url: '/api/v1/categories?page=', next_url: '/api/v1/categories?page=', count: 5, page: 1, prev: null, next: null },
      data: made,
    });
  });

  it('sorts by name, updated_at and created_at, either way', async () => {
    expect(names(await list('?sort=name'))).toEqual(['Apple', 'Banana', 'Cherry', 'Date', 'Elder']);
    expect(names(await list('?sort=name&order=desc'))).toEqual(['Elder', 'Date', 'Cherry', 'Banana', 'Apple']);
    expect(names(await list('?order=desc'))).toEqual(made.map((c) => c.name).reverse());
    await api('PUT', `/api/v1/categories/${made[0].id}`, tenant.tokens.account, { category: { description: 'touched' } });
    expect(names(await list('?sort=updated_at')).at(-1)).toBe('Cherry');
    expect(names(await list('?sort=updated_at&order=desc'))[0]).toBe('Cherry');
  });

  it('pages through: page 2, the last page and past the end', async () => {
    const page2 = await list('?limit=2&page=2');
    expect(page2.body).toEqual({
      pagination: {
        prev_url: '/api/v1/categories?page=1&limit=2', next_url: '/api/v1/categories?page=3&limit=2',
        count: 5, page: 2, prev: 1, next: 3,
      },
      data: made.slice(2, 4),
    });
    const last = await list('?limit=2&page=3');
    expect(last.body).toEqual({
      pagination: { prev_url: '/api/v1/categories?page=2&limit=2', next_url: '/api/v1/categories?page=', count: 5, page: 3, prev: 2, next: null },
      data: made.slice(4),
    });
    const past = await list('?limit=2&page=9');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination).toMatchObject({ count: 5, page: 9, next: null, next_url: '/api/v1/categories?page=' });
    const offset = await list('?limit=2&offset=4');
    expect(offset.body.data).toEqual(made.slice(4));
  });

  it('follows next_url from the first page to the last', async () => {
    const pages = await walkPages(t.app, tenant.tokens.account, '/api/v1/categories?limit=2');
    expect(pages.map((p) => p.pagination.page)).toEqual([1, 2, 3]);
    expect(pages.flatMap((p) => p.data.map((c) => c.id))).toEqual(made.map((c) => c.id));
  });

  it('never repeats or skips rows that share created_at and name, either way', async () => {
    const crowd = await createTenant(t.services, 'Crowd');
    const at = new Date('2026-01-01T00:00:00.000Z');
    const ids = Array.from({ length: 7 }, () => newId());
    await t.services.db.insertInto('categories').values(ids.map((id, i) => ({
      id, account_id: crowd.account.id, name: 'Same', slug: `same-${i}`, default_language: 'en', created_at: at, updated_at: at,
    }))).execute();
    const ascending = [...ids].sort();
    for (const [query, expected] of [
      ['limit=3', ascending],
      ['limit=3&order=desc', [...ascending].reverse()],
      ['limit=2&sort=name', ascending],
      ['limit=2&sort=updated_at&order=desc', [...ascending].reverse()],
    ] as const) {
      const pages = await walkPages(t.app, crowd.tokens.account, `/api/v1/categories?${query}`);
      expect([query, pages.flatMap((p) => p.data.map((c) => c.id))]).toEqual([query, expected]);
      expect(pages.every((p) => p.pagination.count === 7)).toBe(true);
    }
  });

  // The paging parameters of every list are in test/http/list-parameters.test.ts.
  it.each([
    ['sort=slug', 'sort is not one of the allowed values'],
    ['sort=last_seen_at', 'sort is not one of the allowed values'],
  ])('refuses %s with 400', async (query, message) => {
    const res = await list(`?${query}`);
    expect(res).toMatchObject({ status: 400, body: errors(400, message) });
  });
});
