/**
 * Lists whose rows share one created_at: pages follow each other by `next_url` without repeating
 * or skipping a row, in both orders, and a page past the end is empty with the true count.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/db/ids.ts';
import { call } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';
import { walkPages } from '../helpers/pages.ts';

const { t, tenants: [tenant] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Ties'] });
const moment = new Date('2026-01-01T00:00:00.000Z');
const ROWS = 23;

beforeAll(async () => {
  const { db } = t.services;
  await db.insertInto('consents').values(Array.from({ length: ROWS }, () => ({
    id: newId(), account_id: tenant.account.id, session_id: 'tie', accept_type: 'all' as const, gpc: false, created_at: moment,
  }))).execute();
  await db.insertInto('account_consent_counts').values({ account_id: tenant.account.id, consents: ROWS }).execute();
  await db.insertInto('ai_actions').values(Array.from({ length: ROWS }, () => ({
    id: newId(), account_id: tenant.account.id, action_type: 'autofill' as const, actionable_type: 'StorageItem' as const,
    actionable_id: newId(), suggested_params: '{}', previous_params: '{}', confidence: 0.9, source: 'test', created_at: moment,
  }))).execute();
});

describe.each([
  ['consents', '/api/v1/consents'],
  ['AI actions', '/api/v1/ai-actions'],
])('%s with equal timestamps', (_, path) => {
  it.each(['asc', 'desc'])('pages through every row once, order %s', async (order) => {
    const pages = await walkPages(t.app, tenant.tokens.account, `${path}?limit=5&order=${order}`);
    expect(pages).toHaveLength(Math.ceil(ROWS / 5));
    const ids = pages.flatMap((page) => page.data.map((row) => row.id));
    expect(new Set(ids).size).toBe(ROWS);
    expect(ids).toEqual(order === 'asc' ? [...ids].sort() : [...ids].sort().reverse());
    expect(pages.at(-1)!.pagination).toMatchObject({ next: null, next_url: `${path}?page=`, count: ROWS });
    expect(pages[1].pagination).toMatchObject({ page: 2, prev: 1, next: 3 });
  });

  it('answers past the end with no rows and the true count', async () => {
    const past = await call(t.app, 'GET', path, { token: tenant.tokens.account, query: { limit: '5', page: '9' } });
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ data: [], pagination: { count: ROWS, page: 9, next: null, prev: 8 } });
  });
});
