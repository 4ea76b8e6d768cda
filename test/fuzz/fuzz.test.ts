/**
 * Property-based fuzzing from the OpenAPI document, a small seeded slice of `npm run test:fuzz`;
 * the tenant-leak check generated from the route table; and the bugs fuzzing found, kept as cases.
 */
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/json-body.ts';
import { call } from '../helpers/app.ts';
import { createTenant } from '../helpers/tenants.ts';
import { problemsOf } from './check.ts';
import { probeLeaks } from './leaks.ts';
import { operationsOf } from './openapi.ts';
import { describeFindings, fuzz } from './run.ts';
import { deep, POLLUTION_KEY } from './values.ts';
import { buildWorld, snapshotOf, type World } from './world.ts';

/** Fixed: the slice is the same requests on every run; `npm run test:fuzz` draws new ones. */
const SEED = 20_261_122;
const RUNS = 600;

let world: World;
beforeAll(async () => {
  world = await buildWorld();
});
afterAll(async () => {
  await world.close();
});

const error = (status: number, message: string) => ({ errors: [{ code: status, message }] });
const invalid = (...messages: string[]) => ({ errors: messages.map((e) => ({ error: e })) });

describe('tenant isolation of every GET route', () => {
  it("never shows tenant A an id or a name of tenant B's records, and B's records in a path are 401/403/404", async () => {
    const report = await probeLeaks(world);
    expect(report.probes).toBeGreaterThan(500);
    expect(report.leaks).toEqual([]);
    expect(report.reached).toEqual([]);
    expect(report.blind, JSON.stringify(report.blind)).toEqual([]);
  });

  it('would see a leak: with B\'s tokens in A\'s place, B\'s data shows up', async () => {
    const swapped = { ...world, a: { ...world.a, tenant: { ...world.a.tenant, tokens: world.b.tenant.tokens } } };
    const report = await probeLeaks(swapped, ['/api/v1/categories', '/api/v1/me']);
    expect(report.leaks.length).toBeGreaterThan(0);
  });
});

describe(`fuzzing every operation of the OpenAPI document (seed ${SEED}, ${RUNS} requests)`, () => {
  it('covers every route under /api/v1 and /widget', () => {
    const operations = operationsOf(world.t.app);
    const routed = world.t.app.routeTable.filter((r) => /^\/(api\/v1|widget)\//.test(r.url) && r.url !== '/api/v1/openapi.json');
    expect(operations.map((op) => `${op.method} ${op.path}`).sort())
      .toEqual(routed.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`).sort());
    // The single-object 400 is allowed only where the contract names it.
    expect(operations.filter((op) => op.singleForm400).map((op) => op.operationId).sort()).toEqual(['createAccountInvitation', 'listConsents']);
  });

  it('answers no 5xx, errors only in the contract\'s forms and declared statuses, no internals, nothing of B', async () => {
    const before = await snapshotOf(world, world.b);
    const result = await fuzz(world, { seed: SEED, runs: RUNS });
    expect(result.requests).toBe(RUNS);
    expect(result.findings, describeFindings(result)).toEqual([]);
    // Both ends of the scale were reached: requests that went through, and requests refused.
    expect(Object.keys(result.statuses).filter((s) => Number(s) < 300).length).toBeGreaterThan(0);
    expect(Object.keys(result.statuses).filter((s) => Number(s) >= 400).length).toBeGreaterThan(4);
    expect(await snapshotOf(world, world.b)).toEqual(before);
  });

  it('the checks catch what they are meant to', () => {
    const op = operationsOf(world.t.app).find((o) => o.operationId === 'createCategory');
    const answer = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ctx = { op, forbidden: ['secret-of-b'] };
    expect(problemsOf(answer(201, { data: {} }), ctx)).toEqual([]);
    expect(problemsOf(answer(422, invalid('Name is invalid')), ctx)).toEqual([]);
    expect(problemsOf(answer(500, error(500, 'Internal server error')), ctx)).toEqual(['status 500']);
    expect(problemsOf(answer(422, error(422, 'x')), ctx)).toHaveLength(1);
    expect(problemsOf(answer(404, { error: 'Not Found', statusCode: 404 }), ctx)).toHaveLength(1);
    expect(problemsOf(answer(400, { error: { code: 400, message: 'x' } }), ctx)).toHaveLength(1);
    expect(problemsOf(answer(418, error(418, 'x')), ctx)).toEqual(['status 418 not declared by createCategory']);
    expect(problemsOf(answer(400, error(400, 'syntax error at or near "SELECT"')), ctx)).toHaveLength(1);
    expect(problemsOf(answer(400, error(400, 'at Object.<anonymous> (/app/src/x.ts:10:5)')), ctx)).toHaveLength(1);
    expect(problemsOf(answer(201, { name: 'secret-of-b' }), ctx)).toEqual(['another tenant\'s "secret-of-b" in the body']);
  });
});

describe('bugs fuzzing found, kept', () => {
  it('ignores unknown body fields: `account_id` or `id` cannot move a record to another tenant', async () => {
    const { app, services } = world.t;
    const x = await createTenant(services, 'Mover');
    const y = await createTenant(services, 'Target');
    const created = await call(app, 'POST', '/api/v1/categories', {
      token: x.tokens.account, body: { category: { name: 'Moved', account_id: y.account.id, id: '00000000-0000-0000-0000-000000000000' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.id).not.toBe('00000000-0000-0000-0000-000000000000');
    const updated = await call(app, 'PUT', `/api/v1/categories/${created.body.data.id}`, {
      token: x.tokens.account, body: { category: { account_id: y.account.id, partner_id: y.partner.id } },
    });
    expect(updated.status).toBe(200);
    const group = await call(app, 'PUT', `/api/v1/groups/${x.group.id}`, { token: x.tokens.partner, body: { group: { partner_id: y.partner.id } } });
    expect(group.status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/categories', { token: y.tokens.account })).body.data).toEqual([]);
    expect((await call(app, 'GET', `/api/v1/categories/${created.body.data.id}`, { token: x.tokens.account })).status).toBe(200);
    expect((await call(app, 'GET', `/api/v1/groups/${x.group.id}`, { token: x.tokens.partner })).status).toBe(200);
  });

  it('refuses text PostgreSQL cannot store (NUL, lone surrogates) as invalid, not 500', async () => {
    const { app } = world.t;
    const token = world.a.tenant.tokens.account;
    for (const name of ['a\u0000b', '\uD800x']) {
      const res = await call(app, 'POST', '/api/v1/categories', { token, body: { category: { name } } });
      expect(res).toMatchObject({ status: 422, body: invalid('Name is invalid') });
    }
    expect(await call(app, 'POST', '/api/v1/auth', { body: { email: '\u0000', password: 'x' } }))
      .toMatchObject({ status: 422, body: invalid('Email is invalid') });
    const services = { consent: { session_id: 's', user_preferences: { accept_type: 'all', accepted_services: { '\u0000': [] } } } };
    expect(await call(app, 'POST', '/api/v1/consents', { token, body: services }))
      .toMatchObject({ status: 422, body: invalid('Accepted services is invalid') });
    expect(await call(app, 'GET', '/api/v1/consents?session_id=%00', { token }))
      .toMatchObject({ status: 400, body: { error: { code: 400, message: 'session_id is invalid' } } });
  });

  it('answers an empty category_id of a storage item 422, not a 500 from the uuid column', async () => {
    const { app } = world.t;
    const token = world.a.tenant.tokens.account;
    const created = await call(app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: 'empty_category', category_id: '' } } });
    expect(created).toMatchObject({ status: 422, body: invalid('Category must exist') });
    const changed = await call(app, 'PUT', `/api/v1/storage-items/${world.a.main['storage-items'][0]}`, { token, body: { storage_item: { category_id: '' } } });
    expect(changed).toMatchObject({ status: 422, body: invalid('Category must exist') });
  });

  it('answers a path parameter that is not valid percent-encoding, or too long, 404 in the contract form', async () => {
    const { app } = world.t;
    for (const id of ['%zz', '%E0%A4%A', '%ED%A0%80', 'a'.repeat(201)]) {
      for (const url of [`/api/v1/categories/${id}`, `/widget/${id}/config.json`]) {
        const res = await call(app, 'GET', url, { token: world.a.tenant.tokens.account, headers: { 'x-request-id': 'bad-url' } });
        expect(res, url).toMatchObject({ status: 404, body: error(404, 'Record not found') });
        expect(res.headers['x-request-id']).toBe('bad-url');
      }
    }
  });

  it('answers 404 on the widget for an account deleted while the widget still holds it', async () => {
    const { app, services } = world.t;
    const gone = await createTenant(services, 'Gone');
    const consent = { consent: { session_id: 's', user_preferences: { accept_type: 'all' } } };
    expect((await call(app, 'GET', `/widget/${gone.account.id}/config.json`)).status).toBe(200);
    expect((await call(app, 'DELETE', `/api/v1/accounts/${gone.account.id}`, { token: gone.tokens.partner })).status).toBe(200);
    expect(await call(app, 'GET', `/widget/${gone.account.id}/config.json?session_id=v`)).toMatchObject({ status: 404, body: error(404, 'Record not found') });
    expect(await call(app, 'POST', `/widget/${gone.account.id}/consents`, { body: consent })).toMatchObject({ status: 404, body: error(404, 'Record not found') });
  });
});

describe('limits', () => {
  const tooDeep = error(400, `Request body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`);

  it('refuses JSON nested 10,000 levels deep with 400 (413 past the widget\'s 16 KiB), whole or in a field', async () => {
    const { app } = world.t;
    const { tenant } = world.a;
    const targets = [
      { method: 'POST', url: '/api/v1/categories', token: tenant.tokens.account, wrap: (d: string) => `{"category":{"name":"n","extra":${d}}}` },
      { method: 'PUT', url: `/api/v1/accounts/${tenant.account.id}`, token: tenant.tokens.account, wrap: (d: string) => `{"account":${d}}` },
      { method: 'POST', url: '/api/v1/auth', token: undefined, wrap: (d: string) => d },
      { method: 'POST', url: `/widget/${tenant.account.id}/consents`, token: undefined, wrap: (d: string) => `{"consent":{"session_id":"s","user_preferences":${d}}}` },
    ];
    for (const { method, url, token, wrap } of targets) {
      const widget = url.startsWith('/widget');
      for (const shape of ['array', 'object'] as const) {
        for (const type of widget ? ['application/json', 'text/plain'] : ['application/json']) {
          const headers = { 'content-type': type };
          const res = await call(app, method, url, { token, body: wrap(deep(widget ? 2_000 : 10_000, shape).text), headers });
          expect(res, `${method} ${url} ${shape} ${type}`).toMatchObject({ status: 400, body: tooDeep });
          if (widget) {
            const tooLarge = await call(app, method, url, { token, body: wrap(deep(10_000, shape).text), headers });
            expect(tooLarge).toMatchObject({ status: 413, body: error(413, 'Request body is too large') });
          }
        }
      }
    }
    // A body within the limit still counts as JSON: the depth of a string's brackets does not.
    const bracketsInText = { category: { name: '['.repeat(200), slug: 'brackets' } };
    expect((await call(app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: bracketsInText })).status).toBe(201);
  });

  it('never lets `__proto__` or `constructor.prototype` keys pollute objects, also through text/plain', async () => {
    const { app } = world.t;
    const { tenant } = world.a;
    const polluted = `{"consent":{"session_id":"s","user_preferences":{"accept_type":"all"}},"__proto__":{"${POLLUTION_KEY}":true}}`;
    const constructor = `{"category":{"name":"p","constructor":{"prototype":{"${POLLUTION_KEY}":true}}}}`;
    for (const type of ['application/json', 'text/plain']) {
      const res = await call(app, 'POST', `/widget/${tenant.account.id}/consents`, { body: polluted, headers: { 'content-type': type } });
      expect(res, type).toMatchObject({ status: 400, body: error(400, 'Request body keys __proto__ and constructor.prototype are not allowed') });
    }
    expect((await call(app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: constructor })).status).toBe(400);
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, POLLUTION_KEY)).toBe(false);
    expect(({} as Record<string, unknown>)[POLLUTION_KEY]).toBeUndefined();
  });

  it('answers very long header values and URLs in the contract forms', async () => {
    const { app } = world.t;
    const token = world.a.tenant.tokens.account;
    const authorization = await call(app, 'GET', '/api/v1/me', { headers: { authorization: `Bearer csu_${'a'.repeat(100_000)}` } });
    expect(authorization).toMatchObject({ status: 401, body: error(401, 'Invalid API Key') });
    const odd = await call(app, 'GET', '/api/v1/me', { token, headers: { 'x-request-id': 'r'.repeat(10_000), 'user-agent': 'u'.repeat(100_000) } });
    expect(odd.status).toBe(200);
    expect(String(odd.headers['x-request-id']).length).toBeLessThanOrEqual(128);
    const longQuery = await call(app, 'GET', `/api/v1/categories?sort=${'s'.repeat(100_000)}`, { token });
    expect(longQuery).toMatchObject({ status: 400, body: error(400, 'sort is not one of the allowed values') });
    const longPath = await call(app, 'GET', `/api/v1/${'p/'.repeat(50_000)}`, { token });
    expect(longPath).toMatchObject({ status: 404, body: error(404, 'Not found') });
  });

  it('refuses over a real connection headers or a URL past 16 KiB, and broken HTTP, in the contract form', async () => {
    const { app } = world.t;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const send = (text: string) => new Promise<string>((resolve, reject) => {
      let answer = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(text));
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
    const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    const tooLarge = error(431, 'Request headers (with the URL) are too large');
    const longHeader = await send(`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(longHeader).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(longHeader)).toEqual(tooLarge);
    const longUrl = await send(`GET /api/v1/me?q=${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(bodyOf(longUrl)).toEqual(tooLarge);
    const broken = await send('GET /api/v1/me HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(broken)).toEqual(error(400, 'Malformed HTTP request'));
  });
});
