import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startApp, type TestApp } from './helpers/app.ts';

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean }[];
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** The only routes under /api/v1 that are not in the document: the document itself. */
const UNDOCUMENTED = new Set(['GET /api/v1/openapi.json']);

let t: TestApp;
let doc: Document;
let operations: { method: string; path: string; op: Operation }[];

beforeAll(async () => {
  t = await startApp();
  const res = await call<Document>(t.app, 'GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});
afterAll(async () => { await t.close(); });

/**
 * Every route the app serves, read from Fastify's route tree (`printRoutes`): one line per node,
 * `├── <path> (<METHODS>)`, children indented four columns below their parent and relative to it.
 */
function servedRoutes(tree: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const path = (depth === 0 ? '' : stack[depth - 1]) + match[2];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.push(`${method} ${path}`);
  }
  return routes;
}

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
    const served = servedRoutes(t.app.printRoutes({ commonPrefix: false }))
      .filter((route) => !route.startsWith('HEAD '))
      .map((route) => route.replace(/:(\w+)/g, '{$1}'));
    const api = served.filter((route) => route.split(' ')[1].startsWith('/api/v1/'));
    expect(api).toContain('GET /api/v1/me');
    const documented = operations.map(({ method, path }) => `${method} ${path}`);
    expect(api.filter((route) => !UNDOCUMENTED.has(route)).sort()).toEqual(
      documented.filter((route) => route.split(' ')[1].startsWith('/api/v1/')).sort(),
    );
    for (const route of documented) expect(served, route).toContain(route);
  });

  it('declares bearer security on exactly the operations that need a token', async () => {
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer']);
    const guarded: string[] = [];
    for (const { method, path, op } of operations) {
      const url = path.replace(/\{\w+\}/g, '00000000-0000-7000-8000-000000000000');
      const res = await call(t.app, method, url);
      const needsToken = res.status === 401;
      if (needsToken) {
        expect(res.body, `${method} ${path}`).toEqual({ errors: [{ code: 401, message: 'Invalid API Key' }] });
        guarded.push(op.operationId!);
      }
      expect(op.security ?? [], `${method} ${path}`).toEqual(needsToken ? [{ bearer: [] }] : []);
    }
    expect(guarded).toContain('me');
    expect(guarded).not.toContain('login');
  });
});

describe('GET /docs', () => {
  it('serves the API reference page, which loads the document and a bundled script', async () => {
    const first = await call(t.app, 'GET', '/docs');
    const page = first.status === 301 ? await call(t.app, 'GET', String(first.headers.location)) : first;
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('/api/v1/openapi.json');
    const script = /<script src="([^"]+)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    const asset = await call(t.app, 'GET', new URL(script!, 'http://host/docs/').pathname);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
  });
});
