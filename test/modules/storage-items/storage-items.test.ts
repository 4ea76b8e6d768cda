import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import type { StorageItemRow } from '../../../src/db/schema.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { walkPages } from '../../helpers/pages.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [a, b] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Alpha', 'Beta'] });
let aCategory: string;
let bCategory: string;
beforeAll(async () => {
  aCategory = (await api('POST', '/api/v1/categories', a.tokens.account, { category: { name: 'Analytics' } })).body.data.id;
  bCategory = (await api('POST', '/api/v1/categories', b.tokens.account, { category: { name: 'Analytics' } })).body.data.id;
});

const api = (method: string, url: string, token?: string, body?: unknown) => call(t.app, method, url, { token, body });
const errors = (code: number, message: string) => ({ errors: [{ code, message }] });
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Item = ReturnType<typeof itemJson>;

/** The contract's storage item, written out from a stored row. */
const itemJson = (row: StorageItemRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  company_name: row.company_name,
  domain: row.domain,
  duration: row.duration,
  last_seen_at: row.last_seen_at?.toISOString() ?? null,
  partitioned: row.partitioned,
  path: row.path,
  same_site: row.same_site,
  category_id: row.category_id,
  status: row.status,
  approved_by_type: row.approved_by_type,
  is_wildcard_cookie: row.is_wildcard_cookie,
  wildcard_cookie_id: row.wildcard_cookie_id,
  storage_type: row.storage_type,
  created_by: row.created_by,
  translations: row.translations,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

const stored = (id: string) => t.services.db.selectFrom('storage_items').selectAll().where('id', '=', id).executeTakeFirst();
const itemsOf = (accountId: string) =>
  t.services.db.selectFrom('storage_items').selectAll().where('account_id', '=', accountId).orderBy('id').execute();

async function create(token: string, storage_item: Record<string, unknown>): Promise<Item> {
  const res = await api('POST', '/api/v1/storage-items', token, { storage_item });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function update(token: string, id: string, storage_item: Record<string, unknown>): Promise<Item> {
  const res = await api('PUT', `/api/v1/storage-items/${id}`, token, { storage_item });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

describe('POST /storage-items', () => {
  it('creates an item with only a name, filling every default, and answers it wrapped with 201', async () => {
    const res = await api('POST', '/api/v1/storage-items', a.tokens.account, { storage_item: { name: ' session_id ' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(UUID),
        name: 'session_id',
        description: '',
        company_name: '',
        domain: '',
        duration: '',
        last_seen_at: null,
        partitioned: false,
        path: '/',
        same_site: null,
        category_id: null,
        status: 'draft',
        approved_by_type: null,
        is_wildcard_cookie: false,
        wildcard_cookie_id: null,
        storage_type: 'cookie',
        created_by: 'api',
        translations: {},
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });
    const row = await stored(res.body.data.id);
    expect(row!.account_id).toBe(a.account.id);
    expect(itemJson(row!)).toEqual(res.body.data);
  });

  it('creates an item with every field; a user token records created_by user', async () => {
    const fields = {
      name: 'prefs', description: 'Remembers choices.', company_name: 'Shop Ltd', domain: '.shop.example.com', duration: '1 year',
      last_seen_at: '2026-10-01T12:00:00.000Z', partitioned: true, path: '/account', same_site: 'Strict', category_id: aCategory,
      status: 'in_review', storage_type: 'local_storage', translations: { de: { description: 'Merkt sich Auswahlen.', duration: '1 Jahr' } },
    };
    const res = await api('POST', '/api/v1/storage-items', a.tokens.admin, { storage_item: fields });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      ...fields, id: expect.stringMatching(UUID), approved_by_type: null, is_wildcard_cookie: false, wildcard_cookie_id: null,
      created_by: 'user', created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
    });
    expect(itemJson((await stored(res.body.data.id))!)).toEqual(res.body.data);
  });

  it('ignores the computed fields when a client sends them', async () => {
    const item = await create(a.tokens.account, {
      name: 'plain', is_wildcard_cookie: true, wildcard_cookie_id: randomUUID(), created_by: 'scan', approved_by_type: 'AI',
    });
    expect(item).toMatchObject({ is_wildcard_cookie: false, wildcard_cookie_id: null, created_by: 'api', approved_by_type: null });
  });

  it('takes each same_site value and null', async () => {
    for (const same_site of ['Lax', 'Strict', 'None', null]) {
      expect((await create(a.tokens.account, { name: 'ss', same_site })).same_site).toBe(same_site);
    }
  });

  it('marks the account as having vendors set up', async () => {
    const tenant = await createTenant(t.services, 'Onboard');
    const status = async () => (await api('GET', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.account)).body.onboarding_status;
    expect(await status()).toBe('account_created');
    await create(tenant.tokens.account, { name: '_fbp' });
    expect(await status()).toBe('vendors_setup');
  });

  it.each([
    ['an empty name', { name: '' }, "Name can't be blank"],
    ['a whitespace name', { name: '   ' }, "Name can't be blank"],
    ['no name', { domain: 'x.example.com' }, "Name can't be blank"],
    ['a name too long', { name: 'x'.repeat(256) }, 'Name is too long (maximum is 255 characters)'],
    ['a description too long', { name: 'd', description: 'x'.repeat(2001) }, 'Description is too long (maximum is 2000 characters)'],
    ['a path too long', { name: 'p', path: `/${'x'.repeat(1024)}` }, 'Path is too long (maximum is 1024 characters)'],
    ['the status processing', { name: 's', status: 'processing' }, 'Status is not included in the list'],
    ['an unknown status', { name: 's', status: 'approved' }, 'Status is not included in the list'],
    ['an unknown storage type', { name: 's', storage_type: 'indexed_db' }, 'Storage type is not included in the list'],
    ['a text as partitioned', { name: 's', partitioned: 'yes' }, 'Partitioned is invalid'],
  ])('refuses %s with 422 and stores nothing', async (_, storage_item, message) => {
    const before = await itemsOf(a.account.id);
    const res = await api('POST', '/api/v1/storage-items', a.tokens.account, { storage_item });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid(message));
    expect(await itemsOf(a.account.id)).toEqual(before);
  });

  it.each([
    ['a same_site in the wrong case', { same_site: 'lax' }, 'Same site is not included in the list'],
    ['a last_seen_at that is no time', { last_seen_at: 'yesterday' }, 'Last seen at is invalid'],
    ['a number as category_id', { category_id: 5 }, 'Category id is invalid'],
  ])('refuses %s with 422', async (_, fields, message) => {
    const res = await api('POST', '/api/v1/storage-items', a.tokens.account, { storage_item: { name: 'n', ...fields } });
    expect(res).toMatchObject({ status: 422, body: invalid(message) });
  });

  it("refuses another account's category exactly as a category that does not exist", async () => {
    const before = await itemsOf(a.account.id);
    for (const category_id of [bCategory, randomUUID(), 'not-an-id']) {
      const res = await api('POST', '/api/v1/storage-items', a.tokens.account, { storage_item: { name: 'n', category_id } });
      expect([category_id, res.status, res.body]).toEqual([category_id, 422, invalid('Category must exist')]);
    }
    expect(await itemsOf(a.account.id)).toEqual(before);
  });

  it('reports every problem of a request at once', async () => {
    const res = await api('POST', '/api/v1/storage-items', a.tokens.account, { storage_item: { name: ' ', category_id: bCategory } });
    expect(res).toMatchObject({ status: 422, body: invalid("Name can't be blank", 'Category must exist') });
  });
});

describe('GET /storage-items/{id}', () => {
  it('answers the item wrapped, to a member too', async () => {
    const item = await create(a.tokens.account, { name: 'readable', category_id: aCategory });
    const res = await api('GET', `/api/v1/storage-items/${item.id}`, a.tokens.member);
    expect(res).toMatchObject({ status: 200, body: { data: item } });
  });

  it("answers 404 for another account's item, an unknown id and a non-id", async () => {
    const theirs = await create(b.tokens.account, { name: 'theirs' });
    for (const id of [theirs.id, randomUUID(), 'nope']) {
      const res = await api('GET', `/api/v1/storage-items/${id}`, a.tokens.account);
      expect([id, res.status, res.body]).toEqual([id, 404, errors(404, 'Record not found')]);
    }
  });
});

describe('PUT /storage-items/{id}', () => {
  it('changes only the fields sent and moves updated_at; created_by stays', async () => {
    const item = await create(a.tokens.account, { name: 'before', domain: 'a.example.com', category_id: aCategory });
    const res = await api('PUT', `/api/v1/storage-items/${item.id}`, a.tokens.admin, {
      storage_item: { name: 'after', company_name: 'Acme', same_site: 'None', last_seen_at: '2026-11-01T00:00:00Z', category_id: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        ...item, name: 'after', company_name: 'Acme', same_site: 'None', last_seen_at: '2026-11-01T00:00:00.000Z', category_id: null,
        updated_at: expect.stringMatching(ISO),
      },
    });
    expect(res.body.data.updated_at >= item.updated_at).toBe(true);
    expect(itemJson((await stored(item.id))!)).toEqual(res.body.data);
  });

  it('refuses a blank name, processing, and a foreign category, and changes nothing', async () => {
    const item = await create(a.tokens.account, { name: 'steady', category_id: aCategory });
    const before = await stored(item.id);
    for (const [fields, message] of [
      [{ name: '' }, "Name can't be blank"],
      [{ status: 'processing' }, 'Status is not included in the list'],
      [{ category_id: bCategory }, 'Category must exist'],
      [{ storage_type: 'cache' }, 'Storage type is not included in the list'],
    ] as const) {
      const res = await api('PUT', `/api/v1/storage-items/${item.id}`, a.tokens.account, { storage_item: fields });
      expect([fields, res.status, res.body]).toEqual([fields, 422, invalid(message)]);
    }
    expect(await stored(item.id)).toEqual(before);
  });

  it("answers 404 for another account's item and leaves it alone", async () => {
    const theirs = await create(b.tokens.account, { name: 'guarded' });
    const res = await api('PUT', `/api/v1/storage-items/${theirs.id}`, a.tokens.account, { storage_item: { name: 'stolen' } });
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    expect((await stored(theirs.id))!.name).toBe('guarded');
  });
});

describe('status and approved_by_type', () => {
  it('goes draft → in_review → finalised; a user token finalising is User, kept while it stays finalised', async () => {
    const item = await create(a.tokens.account, { name: 'lifecycle' });
    expect(item).toMatchObject({ status: 'draft', approved_by_type: null });
    expect(await update(a.tokens.account, item.id, { status: 'in_review' })).toMatchObject({ status: 'in_review', approved_by_type: null });
    expect(await update(a.tokens.admin, item.id, { status: 'finalised' })).toMatchObject({ status: 'finalised', approved_by_type: 'User' });
    expect(await update(a.tokens.account, item.id, { description: 'edited' })).toMatchObject({ status: 'finalised', approved_by_type: 'User' });
    expect(await update(a.tokens.account, item.id, { status: 'finalised' })).toMatchObject({ approved_by_type: 'User' });
  });

  it('clears approved_by_type when the item leaves finalised; an account token finalising is API', async () => {
    const item = await create(a.tokens.admin, { name: 'back and forth', status: 'finalised' });
    expect(item).toMatchObject({ status: 'finalised', approved_by_type: 'User', created_by: 'user' });
    expect(await update(a.tokens.account, item.id, { status: 'in_review' })).toMatchObject({ status: 'in_review', approved_by_type: null });
    expect(await update(a.tokens.account, item.id, { status: 'finalised' })).toMatchObject({ status: 'finalised', approved_by_type: 'API' });
    expect(await update(a.tokens.admin, item.id, { status: 'draft' })).toMatchObject({ status: 'draft', approved_by_type: null });
    expect((await stored(item.id))!.approved_by_type).toBeNull();
  });

  it("keeps the AI's approval through a person's edit, and lets a client move an item the AI is processing", async () => {
    const approved = await create(a.tokens.account, { name: 'ai approved' });
    await t.services.db.updateTable('storage_items').set({ status: 'finalised', approved_by_type: 'AI' }).where('id', '=', approved.id).execute();
    expect(await update(a.tokens.admin, approved.id, { duration: '1 day' })).toMatchObject({ status: 'finalised', approved_by_type: 'AI' });

    const processing = await create(a.tokens.account, { name: 'ai working' });
    await t.services.db.updateTable('storage_items').set({ status: 'processing' }).where('id', '=', processing.id).execute();
    expect(await update(a.tokens.account, processing.id, { domain: 'x.example.com' })).toMatchObject({ status: 'processing', approved_by_type: null });
    expect(await update(a.tokens.account, processing.id, { status: 'in_review' })).toMatchObject({ status: 'in_review' });
  });
});

describe('POST /storage-items/approve', () => {
  const approve = (token: string, body: unknown) => api('POST', '/api/v1/storage-items/approve', token, body);

  it('finalises the items sent that have a category and wait for a person, and skips the others', async () => {
    const inReview = await create(a.tokens.account, { name: 'bulk_review', category_id: aCategory, status: 'in_review' });
    const draft = await create(a.tokens.account, { name: 'bulk_draft', category_id: aCategory });
    const bare = await create(a.tokens.account, { name: 'bulk_bare', status: 'in_review' });
    const done = await create(a.tokens.account, { name: 'bulk_done', category_id: aCategory, status: 'finalised' });
    const working = await create(a.tokens.account, { name: 'bulk_working', category_id: aCategory });
    await t.services.db.updateTable('storage_items').set({ status: 'processing' }).where('id', '=', working.id).execute();
    const theirs = await create(b.tokens.account, { name: 'bulk_theirs', category_id: bCategory, status: 'in_review' });
    const unknown = randomUUID();

    const res = await approve(a.tokens.admin, { ids: [inReview.id, draft.id.toUpperCase(), bare.id, done.id, working.id, theirs.id, unknown, inReview.id] });
    expect(res).toEqual({
      status: 200,
      body: { data: { approved: [inReview.id, draft.id], skipped: [bare.id, done.id, working.id, theirs.id, unknown] } },
      headers: expect.anything(),
    });
    for (const item of [inReview, draft]) expect(await stored(item.id)).toMatchObject({ status: 'finalised', approved_by_type: 'User' });
    expect(await stored(bare.id)).toMatchObject({ status: 'in_review', approved_by_type: null });
    expect(await stored(done.id)).toMatchObject({ status: 'finalised', approved_by_type: 'API' });
    expect(await stored(working.id)).toMatchObject({ status: 'processing', approved_by_type: null });
    expect(await stored(theirs.id)).toMatchObject({ status: 'in_review', approved_by_type: null });

    // An account token approves as the API.
    const byApi = await create(a.tokens.account, { name: 'bulk_api', category_id: aCategory, status: 'in_review' });
    expect((await approve(a.tokens.account, { ids: [byApi.id] })).body).toEqual({ data: { approved: [byApi.id], skipped: [] } });
    expect(await stored(byApi.id)).toMatchObject({ status: 'finalised', approved_by_type: 'API' });
  });

  it('puts the approved items on the banner at once', async () => {
    const item = await create(a.tokens.account, { name: 'bulk_banner', category_id: aCategory, status: 'in_review' });
    const banner = async () => JSON.stringify((await call(t.app, 'GET', `/widget/${a.account.id}/config.json`, { headers: { origin: `https://${a.account.domain}` } })).body);
    expect(await banner()).not.toContain('bulk_banner');
    expect((await approve(a.tokens.account, { ids: [item.id] })).status).toBe(200);
    expect(await banner()).toContain('bulk_banner');
  });

  it('refuses a member, and a list that is empty, too long or not of ids, changing nothing', async () => {
    const item = await create(a.tokens.account, { name: 'bulk_refused', category_id: aCategory, status: 'in_review' });
    expect(await approve(a.tokens.member, { ids: [item.id] })).toMatchObject({ status: 403, body: errors(403, 'User must be an admin of this account') });
    for (const body of [{ ids: [] }, { ids: Array.from({ length: 101 }, () => item.id) }, { ids: ['nope'] }, { ids: item.id }, {}, null, undefined]) {
      const res = await approve(a.tokens.account, body);
      expect([JSON.stringify(body)?.slice(0, 40), res.status]).toEqual([JSON.stringify(body)?.slice(0, 40), 422]);
    }
    // The route needs a body: an empty one sent as JSON is malformed.
    const empty = await call(t.app, 'POST', '/api/v1/storage-items/approve', { token: a.tokens.account, body: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect(await stored(item.id)).toMatchObject({ status: 'in_review' });
  });
});

describe('DELETE /storage-items/{id}', () => {
  it('deletes the item', async () => {
    const item = await create(a.tokens.account, { name: 'doomed' });
    const res = await api('DELETE', `/api/v1/storage-items/${item.id}`, a.tokens.admin);
    expect(res).toMatchObject({ status: 200, body: { message: 'Storage item was deleted successfully' } });
    expect(await stored(item.id)).toBeUndefined();
    expect((await api('DELETE', `/api/v1/storage-items/${item.id}`, a.tokens.account)).status).toBe(404);
  });

  it("answers 404 for another account's item and keeps it", async () => {
    const theirs = await create(b.tokens.account, { name: 'kept' });
    const res = await api('DELETE', `/api/v1/storage-items/${theirs.id}`, a.tokens.account);
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    expect(await stored(theirs.id)).toBeDefined();
  });
});

describe('who may call /storage-items', () => {
  it('lets a non-admin member read but not write', async () => {
    const item = await create(a.tokens.account, { name: 'members see' });
    const before = await itemsOf(a.account.id);
    expect((await api('GET', '/api/v1/storage-items', a.tokens.member)).status).toBe(200);
    for (const [method, url, body] of [
      ['POST', '/api/v1/storage-items', { storage_item: { name: 'member made' } }],
      ['PUT', `/api/v1/storage-items/${item.id}`, { storage_item: { status: 'finalised' } }],
      ['DELETE', `/api/v1/storage-items/${item.id}`, undefined],
    ] as const) {
      const res = await api(method, url, a.tokens.member, body);
      expect([method, res.status, res.body]).toEqual([method, 403, errors(403, 'User must be an admin of this account')]);
    }
    expect(await itemsOf(a.account.id)).toEqual(before);
  });
});

describe('GET /storage-items', () => {
  let tenant: Tenant;
  let necessary: string;
  let marketing: string;
  let made: Item[];
  beforeAll(async () => {
    tenant = await createTenant(t.services, 'Lister');
    const category = async (name: string) =>
      (await api('POST', '/api/v1/categories', tenant.tokens.account, { category: { name } })).body.data.id as string;
    necessary = await category('Necessary');
    marketing = await category('Marketing');
    made = [];
    for (const fields of [
      { name: 'delta', category_id: necessary, last_seen_at: '2026-03-01T00:00:00Z' },
      { name: 'alpha', category_id: marketing, status: 'finalised', last_seen_at: '2026-01-01T00:00:00Z' },
      { name: 'echo', category_id: marketing, storage_type: 'local_storage' },
      { name: 'charlie', status: 'in_review', last_seen_at: '2026-02-01T00:00:00Z' },
      { name: 'bravo', category_id: marketing, status: 'finalised', storage_type: 'session_storage' },
    ]) made.push(await create(tenant.tokens.account, fields));
  });
  const list = (query = '') => api('GET', `/api/v1/storage-items${query}`, tenant.tokens.account);
  const names = (res: { body: { data: Item[] } }) => res.body.data.map((item) => item.name);

  it("lists the account's own items, oldest first, in the pagination envelope", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pagination: { prev_url: '/api/v1/storage-items?page=', next_url: '/api/v1/storage-items?page=', count: 5, page: 1, prev: null, next: null },
      data: made,
    });
  });

  it('filters by category, status and storage type, alone or together, and counts the matches', async () => {
    const cases: [string, string[]][] = [
      [`category_id=${marketing}`, ['alpha', 'echo', 'bravo']],
      [`category_id=${necessary}`, ['delta']],
      [`category_id=${randomUUID()}`, []],
      ['status=finalised', ['alpha', 'bravo']],
      ['status=draft', ['delta', 'echo']],
      ['status=processing', []],
      ['storage_type=cookie', ['delta', 'alpha', 'charlie']],
      ['storage_type=local_storage', ['echo']],
      [`category_id=${marketing}&status=finalised&storage_type=session_storage`, ['bravo']],
      ['uncategorised=true', ['charlie']],
      ['uncategorised=true&status=finalised', []],
      ['uncategorised=false', ['delta', 'alpha', 'echo', 'charlie', 'bravo']],
    ];
    for (const [query, expected] of cases) {
      const res = await list(`?${query}`);
      expect([query, res.status, names(res), res.body.pagination.count]).toEqual([query, 200, expected, expected.length]);
    }
  });

  it('filters by who added the item: a person, an API token or a scan', async () => {
    const other = await createTenant(t.services, 'Creators');
    const byUser = await create(other.tokens.admin, { name: 'by-user' });
    const byApi = await create(other.tokens.account, { name: 'by-api' });
    const scanId = newId();
    await t.services.db.insertInto('storage_items').values({ id: scanId, account_id: other.account.id, name: 'by-scan', created_by: 'scan' }).execute();
    // Another account's scanned item never shows here.
    await t.services.db.insertInto('storage_items').values({ id: newId(), account_id: tenant.account.id, name: 'elsewhere', created_by: 'scan' }).execute();
    const cases: [string, string[]][] = [
      ['created_by=user', [byUser.id]],
      ['created_by=api', [byApi.id]],
      ['created_by=scan', [scanId]],
      ['created_by=scan&status=finalised', []],
    ];
    for (const [query, expected] of cases) {
      const res = await api('GET', `/api/v1/storage-items?${query}`, other.tokens.account);
      expect([query, res.status, res.body.data.map((item: Item) => item.id), res.body.pagination.count]).toEqual([query, 200, expected, expected.length]);
    }
    const bad = await api('GET', '/api/v1/storage-items?created_by=robot', other.tokens.account);
    expect(bad).toMatchObject({ status: 400, body: errors(400, 'created_by is not one of the allowed values') });
    await t.services.db.deleteFrom('storage_items').where('account_id', '=', tenant.account.id).where('name', '=', 'elsewhere').execute();
  });

  it('carries the filters in the links', async () => {
    const res = await list(`?status=finalised&limit=1`);
    expect(res.body.pagination).toEqual({
      prev_url: '/api/v1/storage-items?page=', next_url: '/api/v1/storage-items?page=2&status=finalised&limit=1',
      count: 2, page: 1, prev: null, next: 2,
    });
    const pages = await walkPages<Item>(t.app, tenant.tokens.account, '/api/v1/storage-items?status=finalised&limit=1');
    expect(pages.flatMap((p) => p.data.map((item) => item.name))).toEqual(['alpha', 'bravo']);
  });

  it('sorts by name, last_seen_at, updated_at and created_at, either way', async () => {
    expect(names(await list('?sort=name'))).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(names(await list('?sort=name&order=desc'))).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha']);
    expect(names(await list('?sort=last_seen_at')).slice(0, 3)).toEqual(['alpha', 'charlie', 'delta']);
    expect(names(await list('?sort=last_seen_at&order=desc')).slice(2)).toEqual(['delta', 'charlie', 'alpha']);
    expect(names(await list('?order=desc'))).toEqual(['bravo', 'charlie', 'echo', 'alpha', 'delta']);
    const touched = made[0];
    await update(tenant.tokens.account, touched.id, { duration: '1 week' });
    expect(names(await list('?sort=updated_at')).at(-1)).toBe(touched.name);
    expect(names(await list('?sort=updated_at&order=desc'))[0]).toBe(touched.name);
  });

  it('pages through: page 2, the last page, past the end, and next_url followed', async () => {
    const ids = made.map((item) => item.id);
    const page2 = await list('?limit=2&page=2');
    expect(page2.body.pagination).toEqual({
      prev_url: '/api/v1/storage-items?page=1&limit=2', next_url: '/api/v1/storage-items?page=3&limit=2',
      count: 5, page: 2, prev: 1, next: 3,
    });
    expect(page2.body.data.map((item: Item) => item.id)).toEqual(ids.slice(2, 4));
    const last = await list('?limit=2&page=3');
    expect(last.body.pagination).toEqual({
      prev_url: '/api/v1/storage-items?page=2&limit=2', next_url: '/api/v1/storage-items?page=', count: 5, page: 3, prev: 2, next: null,
    });
    expect(last.body.data.map((item: Item) => item.id)).toEqual(ids.slice(4));
    const past = await list('?limit=2&page=4');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination).toMatchObject({ count: 5, page: 4, prev: 3, next: null, next_url: '/api/v1/storage-items?page=' });
    const pages = await walkPages<Item>(t.app, tenant.tokens.account, '/api/v1/storage-items?limit=2');
    expect(pages.map((p) => p.pagination.page)).toEqual([1, 2, 3]);
    expect(pages.flatMap((p) => p.data.map((item) => item.id))).toEqual(ids);
  });

  it('pages 20 at a time by default, and never repeats or skips rows that share created_at', async () => {
    const crowd = await createTenant(t.services, 'Crowd');
    const at = new Date('2026-01-01T00:00:00.000Z');
    const ids = Array.from({ length: 25 }, () => newId());
    await t.services.db.insertInto('storage_items').values(ids.map((id) => ({
      id, account_id: crowd.account.id, name: 'same', created_at: at, updated_at: at, last_seen_at: at,
    }))).execute();
    const ascending = [...ids].sort();
    const first = await api('GET', '/api/v1/storage-items', crowd.tokens.account);
    expect(first.body.data).toHaveLength(20);
    expect(first.body.pagination).toMatchObject({ count: 25, next: 2, next_url: '/api/v1/storage-items?page=2' });
    for (const [query, expected] of [
      ['', ascending],
      ['?limit=7&order=desc', [...ascending].reverse()],
      ['?limit=6&sort=name', ascending],
      ['?limit=4&sort=last_seen_at&order=desc', [...ascending].reverse()],
      ['?limit=9&sort=updated_at', ascending],
    ] as const) {
      const pages = await walkPages<Item>(t.app, crowd.tokens.account, `/api/v1/storage-items${query}`);
      expect([query, pages.flatMap((p) => p.data.map((item) => item.id))]).toEqual([query, expected]);
    }
  });

  // The paging parameters of every list are in test/http/list-parameters.test.ts.
  it.each([
    ['sort=slug', 'sort is not one of the allowed values'],
    ['status=approved', 'status is not one of the allowed values'],
    ['storage_type=cache', 'storage_type is not one of the allowed values'],
    ['category_id=abc', 'category_id must be a valid uuid'],
  ])('refuses %s with 400', async (query, message) => {
    const res = await list(`?${query}`);
    expect(res).toMatchObject({ status: 400, body: errors(400, message) });
  });
});
