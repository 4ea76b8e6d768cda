/**
 * One table for every list route: the paging, sorting and ordering parameters each accepts, and the
 * 400 each answers to a bad one. The per-resource files test only their own filters.
 */
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';

interface ListRoute {
  url: string;
  token: 'partner' | 'account' | 'admin';
  /** `offset`: limit (1..100), offset, page, sort, order; `page`: page and per_page (1..50). */
  paging: 'offset' | 'page';
  sorts: string[];
  /** How its 400 reads: `{"errors": [{code, message}]}`, or the single-object `{"error": {code, message}}`. */
  form: 'errors' | 'error';
}

const ROUTES: ListRoute[] = [
  { url: '/api/v1/groups', token: 'partner', paging: 'page', sorts: [], form: 'errors' },
  { url: '/api/v1/accounts', token: 'partner', paging: 'page', sorts: [], form: 'errors' },
  { url: '/api/v1/api-tokens', token: 'admin', paging: 'offset', sorts: ['created_at'], form: 'errors' },
  { url: '/api/v1/account-users', token: 'account', paging: 'offset', sorts: ['created_at'], form: 'errors' },
  { url: '/api/v1/account-invitations', token: 'account', paging: 'offset', sorts: ['created_at'], form: 'errors' },
  { url: '/api/v1/categories', token: 'account', paging: 'offset', sorts: ['created_at', 'updated_at', 'name'], form: 'errors' },
  { url: '/api/v1/storage-items', token: 'account', paging: 'offset', sorts: ['created_at', 'updated_at', 'name', 'last_seen_at'], form: 'errors' },
  { url: '/api/v1/services', token: 'account', paging: 'offset', sorts: ['created_at'], form: 'errors' },
  { url: '/api/v1/consents', token: 'account', paging: 'offset', sorts: ['created_at'], form: 'error' },
  { url: '/api/v1/consents/erasures', token: 'account', paging: 'offset', sorts: ['created_at'], form: 'errors' },
  { url: '/api/v1/ai-actions', token: 'account', paging: 'offset', sorts: ['created_at'], form: 'errors' },
  { url: '/api/v1/scans', token: 'account', paging: 'offset', sorts: ['created_at'], form: 'errors' },
  { url: '/api/v1/webhooks', token: 'account', paging: 'offset', sorts: ['created_at'], form: 'errors' },
  // A webhook's delivery log takes the same parameters; its path holds the webhook's id (webhooks.test.ts tests its links).
];

const OFFSET_REFUSALS: Array<[string, string]> = [
  ['limit=0', 'limit must be between 1 and 100'],
  ['limit=101', 'limit must be between 1 and 100'],
  ['limit=abc', 'limit must be between 1 and 100'],
  ['limit=2.5', 'limit must be between 1 and 100'],
  // Numbers the validator would read, written otherwise than in digits.
  ['limit=1e1', 'limit must be between 1 and 100'],
  ['limit=0x10', 'limit must be between 1 and 100'],
  ['limit=%2B5', 'limit must be between 1 and 100'],
  ['limit=2.0', 'limit must be between 1 and 100'],
  ['offset=1e3', 'offset must be greater than or equal to 0'],
  ['offset=-1', 'offset must be greater than or equal to 0'],
  ['page=0', 'page must be greater than or equal to 1'],
  ['sort=bogus', 'sort is not one of the allowed values'],
  ['order=up', 'order is not one of the allowed values'],
];

const PAGE_REFUSALS: Array<[string, string]> = [
  ['per_page=0', 'per_page must be between 1 and 50'],
  ['per_page=51', 'per_page must be between 1 and 50'],
  ['per_page=abc', 'per_page must be between 1 and 50'],
  ['per_page=2.5', 'per_page must be between 1 and 50'],
  ['page=0', 'page must be greater than or equal to 1'],
  ['page=-1', 'page must be greater than or equal to 1'],
  ['page=two', 'page must be greater than or equal to 1'],
  ['page=1e0', 'page must be greater than or equal to 1'],
  ['per_page=1e1', 'per_page must be between 1 and 50'],
];

const { t, tenants: [tenant] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Lists'] });

const list = (route: ListRoute, query: string) => call(t.app, 'GET', `${route.url}?${query}`, { token: tenant.tokens[route.token] });
const refusal = (route: ListRoute, message: string) =>
  route.form === 'errors' ? { errors: [{ code: 400, message }] } : { error: { code: 400, message } };

describe.each(ROUTES)('GET $url', (route) => {
  const refusals = route.paging === 'offset' ? OFFSET_REFUSALS : PAGE_REFUSALS;

  it.each(refusals)('refuses %s with 400 naming the parameter', async (query, message) => {
    const res = await list(route, query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refusal(route, message));
  });

  it('accepts every sort in both orders, and the first page', async () => {
    const accepted = route.paging === 'offset'
      ? ['limit=1', 'limit=100&offset=0', 'page=1', ...route.sorts.flatMap((sort) => [`sort=${sort}&order=asc`, `sort=${sort}&order=desc`])]
      : ['page=1', 'per_page=1', 'per_page=50&page=2'];
    for (const query of accepted) {
      const res = await list(route, query);
      expect([query, res.status]).toEqual([query, 200]);
      expect(res.body.pagination).toMatchObject({ count: expect.any(Number), page: expect.any(Number) });
    }
  });

  it('names the resource in its links as routed, however the path was spelt', async () => {
    const sizeParameter = route.paging === 'offset' ? 'limit' : 'per_page';
    const last = route.url.lastIndexOf('/') + 1;
    const spelt = `${route.url.slice(0, last)}%${route.url.charCodeAt(last).toString(16)}${route.url.slice(last + 1)}`;
    for (const path of [`${route.url}/`, spelt]) {
      const res = await call(t.app, 'GET', `${path}?${sizeParameter}=1&page=2`, { token: tenant.tokens[route.token] });
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.body.pagination).toMatchObject({
        prev_url: `${route.url}?page=1&${sizeParameter}=1`,
        next_url: expect.stringMatching(new RegExp(`^${route.url}\\?page=($|3&${sizeParameter}=1$)`)),
      });
    }
  });
});
