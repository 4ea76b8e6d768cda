import { describe, expect, it } from 'vitest';
import { call } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';

const { t, tenants: [tenant] } = fileApp({ env: { BODY_LIMIT_BYTES: '2048' }, tenants: ['Errors'] });

const errors = (code: number, message: string) => ({ errors: [{ code, message }] });

describe('error bodies', () => {
  it('415 for a body that is not JSON', async () => {
    const res = await call(t.app, 'POST', '/api/v1/groups', {
      token: tenant.tokens.partner, body: 'name=x', headers: { 'content-type': 'text/plain' },
    });
    expect(res).toMatchObject({ status: 415, body: errors(415, 'Content-Type must be application/json') });
    const form = await call(t.app, 'POST', '/api/v1/groups', {
      token: tenant.tokens.partner, body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });

  it('400 for malformed JSON, in the array form', async () => {
    const res = await call(t.app, 'POST', '/api/v1/groups', { token: tenant.tokens.partner, body: '{"group": {"name": ' });
    expect(res).toMatchObject({ status: 400, body: errors(400, 'Request body is not valid JSON') });
  });

  it('413 for a body over the limit', async () => {
    const res = await call(t.app, 'POST', '/api/v1/groups', { token: tenant.tokens.partner, body: { group: { name: 'x'.repeat(4000) } } });
    expect(res).toMatchObject({ status: 413, body: errors(413, 'Request body is too large') });
  });

  it('404 for an unknown route, and for an id that is not a UUID', async () => {
    expect(await call(t.app, 'GET', '/api/v1/nothing-here')).toMatchObject({ status: 404, body: errors(404, 'Not found') });
    const res = await call(t.app, 'GET', '/api/v1/groups/not-a-uuid', { token: tenant.tokens.partner });
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
  });

  it('422 for wrong types and blanks, one sentence per problem, never coerced', async () => {
    const res = await call(t.app, 'POST', '/api/v1/groups', {
      token: tenant.tokens.partner, body: { group: { name: 42, max_pageviews_per_month: '10', external_id: 'x'.repeat(300) } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([
      { error: 'Name is invalid' },
      { error: 'Max pageviews per month is invalid' },
      { error: 'External id is too long (maximum is 255 characters)' },
    ]));
    const missing = await call(t.app, 'POST', '/api/v1/groups', { token: tenant.tokens.partner, body: {} });
    expect(missing).toMatchObject({ status: 422, body: { errors: [{ error: "Group can't be blank" }] } });
    const array = await call(t.app, 'POST', '/api/v1/groups', { token: tenant.tokens.partner, body: [] });
    expect(array).toMatchObject({ status: 422, body: { errors: [{ error: 'Body must be a JSON object' }] } });
  });

  it('400 naming the query parameter', async () => {
    const res = await call(t.app, 'GET', '/api/v1/api-tokens', { token: tenant.tokens.admin, query: { limit: '101' } });
    expect(res).toMatchObject({ status: 400, body: errors(400, 'limit must be between 1 and 100') });
    const sort = await call(t.app, 'GET', '/api/v1/api-tokens', { token: tenant.tokens.admin, query: { sort: 'password' } });
    expect(sort).toMatchObject({ status: 400, body: errors(400, 'sort is not one of the allowed values') });
    const notInt = await call(t.app, 'GET', '/api/v1/groups', { token: tenant.tokens.partner, query: { page: 'two' } });
    expect(notInt).toMatchObject({ status: 400, body: errors(400, 'page must be greater than or equal to 1') });
  });
});

describe('headers', () => {
  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await call(t.app, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const aws = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
    expect((await call(t.app, 'GET', '/healthz', { headers: { 'x-request-id': aws } })).headers['x-request-id']).toBe(aws);
    const base64 = 'q8+/Zm9vYmFy==';
    expect((await call(t.app, 'GET', '/healthz', { headers: { 'x-request-id': base64 } })).headers['x-request-id']).toBe(base64);
    const hostile = await call(t.app, 'GET', '/healthz', { headers: { 'x-request-id': '<script>' } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends security headers and no CORS on the API', async () => {
    const res = await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.admin, headers: { origin: 'https://evil.example' } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
