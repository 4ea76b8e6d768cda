/**
 * The OpenAPI document the app serves. Built from the route schemas, it reads nothing the engine
 * keeps: the embedded project only (vitest.config.ts).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: { description?: string } }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** The only routes under /api/v1 that are not in the document: the document itself. */
const UNDOCUMENTED = new Set(['GET /api/v1/openapi.json']);

const { t } = fileApp();
let doc: Document;
let operations: { method: string; path: string; op: Operation }[];

beforeAll(async () => {
  const res = await call<Document>(t.app, 'GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('gives every operation a unique operationId and tags', () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const { method, path, op } of operations) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags?.length, `${method} ${path} has tags`).toBeGreaterThan(0);
    }
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every path parameter', () => {
    for (const { method, path, op } of operations) {
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const parameter = op.parameters?.find((p) => p.in === 'path' && p.name === name);
        expect(parameter?.required, `${method} ${path} declares {${name}}`).toBe(true);
      }
    }
  });

  it('documents every route under /api/v1', () => {
    const key = (method: string, path: string) => `${method} ${path}`;
    const served = t.app.routeTable
      .filter(({ url }) => url.startsWith('/api/v1/'))
      .map(({ method, url }) => key(method, url.replace(/:(\w+)/g, '{$1}')))
      .filter((route) => !UNDOCUMENTED.has(route));
    expect(served).toContain('GET /api/v1/me');
    const documented = operations.filter(({ path }) => path.startsWith('/api/v1/')).map(({ method, path }) => key(method, path));
    expect(documented.sort()).toEqual(served.sort());
  });

  it('declares the optional account_id query parameter on every account route, and on no other', () => {
    const rules = new Map(t.app.routeTable.map(({ method, url, auth }) => [`${method} ${url.replace(/:(\w+)/g, '{$1}')}`, auth]));
    const accountRoutes = operations.filter(({ method, path }) => rules.get(`${method} ${path}`) === 'account');
    expect(accountRoutes.map(({ method, path }) => `${method} ${path}`)).toContain('GET /api/v1/consents/export');
    for (const { method, path, op } of operations) {
      const parameter = op.parameters?.find((p) => p.in === 'query' && p.name === 'account_id');
      if (rules.get(`${method} ${path}`) === 'account') {
        expect(parameter, `${method} ${path}`).toMatchObject({ required: false, schema: { type: 'string', format: 'uuid' } });
        // An account token naming another account is refused (auth.ts), not ignored: the document says so.
        expect(parameter?.description ?? parameter?.schema?.description, `${method} ${path}`).toMatch(/account token may name only its own account/);
      } else {
        expect(parameter, `${method} ${path}`).toBeUndefined();
      }
    }
  });

  it('declares bearer security on exactly the operations that need a token', () => {
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer']);
    const rules = new Map(t.app.routeTable.map(({ method, url, auth }) => [`${method} ${url.replace(/:(\w+)/g, '{$1}')}`, auth]));
    for (const { method, path, op } of operations) {
      const auth = rules.get(`${method} ${path}`);
      expect(auth, `${method} ${path} is a route with an access rule`).toBeDefined();
      const needsToken = auth !== 'public' && auth !== 'none';
      expect(op.security ?? [], `${method} ${path} (${auth})`).toEqual(needsToken ? [{ bearer: [] }] : []);
    }
    expect(operations.find(({ op }) => op.operationId === 'me')?.op.security).toEqual([{ bearer: [] }]);
    expect(operations.find(({ op }) => op.operationId === 'login')?.op.security).toBeUndefined();
  });

  it('documents the errors an operation answers for what it is: its access rule, its path, its body', () => {
    const rules = new Map(t.app.routeTable.map((route) => [`${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`, route]));
    const api = operations.filter(({ path }) => path.startsWith('/api/v1/'));
    expect(api.some(({ op }) => op.requestBody !== undefined && op.security === undefined)).toBe(true);
    for (const { method, path, op } of api) {
      const route = `${method} ${path}`;
      const statuses = Object.keys(op.responses).map(Number);
      const single = op.responses['400']?.content?.['application/json']?.schema?.properties?.error !== undefined;
      expect(statuses, route).toEqual(expect.arrayContaining([400, 401, 429, 500, 503]));
      if (rules.get(route)?.admin) expect(statuses, `${route} is for admins`).toContain(403);
      if (path.includes('{')) expect(statuses, `${route} names a record`).toContain(404);
      if (op.requestBody !== undefined) {
        expect(statuses, `${route} takes a body`).toEqual(expect.arrayContaining(single ? [413, 415] : [413, 415, 422]));
        if (single) expect(statuses, route).not.toContain(422);
      }
    }
  });

  it('answers 413, as documented, to a body past the limit on the operations open to all', async () => {
    const open = operations.filter(({ path, op }) => path.startsWith('/api/v1/') && op.requestBody !== undefined && op.security === undefined);
    expect(open.map(({ op }) => op.operationId)).toContain('login');
    const tooLarge = { padding: 'x'.repeat(t.services.config.bodyLimitBytes) };
    for (const { method, path } of open) {
      const res = await call(t.app, method, path, { body: tooLarge });
      expect(res, `${method} ${path}`).toMatchObject({ status: 413, body: { errors: [{ code: 413, message: 'Request body is too large' }] } });
    }
  });
});

describe('GET /docs', () => {
  it('serves the API reference page, which loads the document and a bundled script', async () => {
    // At /docs itself (no redirect), and at /docs/; the script's address works from both.
    for (const path of ['/docs', '/docs/', '/docs?x=1']) {
      const page = await call(t.app, 'GET', path);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('/api/v1/openapi.json');
      const script = /<script src="([^"]+)"/.exec(page.body)?.[1];
      expect(script).toBeDefined();
      const asset = await call(t.app, 'GET', new URL(script!, `http://host${path}`).pathname);
      expect(asset.status).toBe(200);
      expect(asset.headers['content-type']).toMatch(/javascript/);
    }
  });
});
