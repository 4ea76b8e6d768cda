/**
 * Input the API used to take silently or refuse with the wrong words: an account token naming
 * another account, ids in capitals, forbidden JSON keys, absurd offsets and pages, repeated query
 * parameters, charsets other than UTF-8, and page numbers around an odd offset.
 */
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';
import { insertCategory } from '../helpers/records.ts';
import { createTenant } from '../helpers/tenants.ts';

const { t, tenants: [tenant, other] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Input', 'Other'] });

const errors = (code: number, message: string) => ({ status: code, body: { errors: [{ code, message }] } });

describe('account_id with an account token', () => {
  it('is 401 when it names another account, and fine when it names its own (in any case)', async () => {
    const foreign = await call(t.app, 'GET', '/api/v1/categories', { token: tenant.tokens.account, query: { account_id: other.account.id } });
    expect(foreign).toMatchObject(errors(401, 'API key must belong to an account'));
    const own = await call(t.app, 'GET', '/api/v1/categories', { token: tenant.tokens.account, query: { account_id: tenant.account.id.toUpperCase() } });
    expect(own.status).toBe(200);
  });
});

describe('ids in capitals', () => {
  it('name the same records as in lower case, in the path and in the query', async () => {
    const category = await insertCategory(t.services, tenant.account.id, { name: 'Capitals' });
    const upper = category.id.toUpperCase();
    const viaUser = await call(t.app, 'GET', `/api/v1/categories/${upper}`, { token: tenant.tokens.admin, query: { account_id: tenant.account.id.toUpperCase() } });
    expect(viaUser).toMatchObject({ status: 200, body: { data: { id: category.id } } });
    const account = await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id.toUpperCase()}`, { token: tenant.tokens.partner });
    expect(account).toMatchObject({ status: 200, body: { id: tenant.account.id } });
    const filtered = await call(t.app, 'GET', '/api/v1/accounts', { token: tenant.tokens.partner, query: { group_id: tenant.group.id.toUpperCase() } });
    expect(filtered.body.data.map((a: { id: string }) => a.id)).toEqual([tenant.account.id]);
    const widget = await call(t.app, 'GET', `/widget/${tenant.account.id.toUpperCase()}/config.json`);
    expect(widget).toMatchObject({ status: 200, body: { data: { account: { id: tenant.account.id } } } });
  });
});

describe('bodies', () => {
  it.each([
    '{"category": {"name": "x", "__proto__": {"admin": true}}}',
    '{"category": {"name": "x", "constructor": {"prototype": {"admin": true}}}}',
  ])('refuses forbidden keys by name: %s', async (body) => {
    const res = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body });
    expect(res).toMatchObject(errors(400, 'Request body keys __proto__ and constructor.prototype are not allowed'));
  });

  it('takes an empty body sent as JSON where the route takes none, and refuses it where one is needed', async () => {
    const category = await insertCategory(t.services, tenant.account.id, { name: 'Deleted with a JSON header' });
    const deleted = await call(t.app, 'DELETE', `/api/v1/categories/${category.id}`, { token: tenant.tokens.account, body: '' });
    expect(deleted.status).toBe(200);
    const created = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: '' });
    expect(created).toMatchObject(errors(400, 'Request body is empty but Content-Type is application/json'));
  });

  it('still calls malformed JSON malformed', async () => {
    const res = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: '{"category": ' });
    expect(res).toMatchObject(errors(400, 'Request body is not valid JSON'));
  });

  it('refuses a charset other than UTF-8 with 415, and takes UTF-8 however it is spelt', async () => {
    const send = (contentType: string) => call(t.app, 'POST', '/api/v1/categories', {
      token: tenant.tokens.account, body: JSON.stringify({ category: { name: `Charset ${contentType.length}` } }), headers: { 'content-type': contentType },
    });
    expect(await send('application/json; charset=iso-8859-1')).toMatchObject(errors(415, 'Content-Type charset must be utf-8'));
    expect(await send('application/json; charset="utf-16"')).toMatchObject(errors(415, 'Content-Type charset must be utf-8'));
    expect((await send('application/json; charset=UTF-8')).status).toBe(201);
    expect((await send('application/json;charset=utf8')).status).toBe(201);
    const widget = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
      body: JSON.stringify({ consent: { session_id: 's', user_preferences: { accept_type: 'necessary' } } }), headers: { 'content-type': 'text/plain; charset=windows-1252' },
    });
    expect(widget).toMatchObject(errors(415, 'Content-Type charset must be utf-8'));
  });
});

describe('query parameters', () => {
  it('calls an absurd offset or page too large', async () => {
    expect(await call(t.app, 'GET', '/api/v1/categories?offset=99999999999', { token: tenant.tokens.account })).toMatchObject(errors(400, 'offset is too large (maximum is 1000000000)'));
    expect(await call(t.app, 'GET', '/api/v1/categories?page=99999999999', { token: tenant.tokens.account })).toMatchObject(errors(400, 'page is too large (maximum is 10000000)'));
    expect(await call(t.app, 'GET', '/api/v1/groups?page=99999999999', { token: tenant.tokens.partner })).toMatchObject(errors(400, 'page is too large (maximum is 10000000)'));
    expect(await call(t.app, 'GET', '/api/v1/categories?offset=-1', { token: tenant.tokens.account })).toMatchObject(errors(400, 'offset must be greater than or equal to 0'));
  });

  it('refuses a parameter given twice by name, in the route\'s error form', async () => {
    expect(await call(t.app, 'GET', '/api/v1/categories?limit=2&limit=3', { token: tenant.tokens.account })).toMatchObject(errors(400, 'limit must be given once'));
    const consents = await call(t.app, 'GET', '/api/v1/consents?session_id=a&session_id=b', { token: tenant.tokens.account });
    expect(consents).toMatchObject({ status: 400, body: { error: { code: 400, message: 'session_id must be given once' } } });
  });

  it('numbers the pages around an offset that is not a whole number of pages', async () => {
    const paged = await createTenant(t.services, 'Paged');
    for (let i = 0; i < 5; i++) await insertCategory(t.services, paged.account.id, { name: `P${i}` });
    const res = await call(t.app, 'GET', '/api/v1/categories?offset=1&limit=3', { token: paged.tokens.account });
    expect(res.body.pagination).toEqual({
      count: 5, page: 1, prev: 1, next: 2,
      prev_url: '/api/v1/categories?page=1&offset=0&limit=3',
      next_url: '/api/v1/categories?page=2&offset=4&limit=3',
    });
    expect(res.body.data).toHaveLength(3);
  });
});

describe('date-times', () => {
  // RFC 3339 allows them; neither a JavaScript Date nor PostgreSQL can hold them.
  const unstorable = ['2030-06-30T23:59:60Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59-12:00'];

  it.each(unstorable)('refuses %s in a body (422) and a query (400), never 500', async (time) => {
    const token = await call(t.app, 'POST', '/api/v1/api-tokens', { token: tenant.tokens.admin, body: { name: 'far', expires_at: time } });
    expect(token).toMatchObject({ status: 422, body: { errors: [{ error: 'Expires at is invalid' }] } });
    const listed = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { created_after: time } });
    expect(listed).toMatchObject({ status: 400, body: { error: { code: 400, message: 'created_after must be a valid date-time' } } });
  });

  it('takes the last instant of year 9999 and the first of year 1', async () => {
    const token = await call(t.app, 'POST', '/api/v1/api-tokens', { token: tenant.tokens.admin, body: { name: 'far', expires_at: '9999-12-31T23:59:59.999Z' } });
    expect(token).toMatchObject({ status: 201, body: { data: { expires_at: '9999-12-31T23:59:59.999Z' } } });
    const listed = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { created_after: '0001-01-01T00:00:00Z' } });
    expect(listed.status).toBe(200);
  });
});
