import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { call } from './app.ts';

interface Page<T> {
  pagination: { prev_url: string; next_url: string; count: number; page: number; prev: number | null; next: number | null };
  data: T[];
}

/** The answer to a page past the last of `count` rows: no rows, the true count, a link to the page before. */
export const pageAfterTheLast = (url: string, page: number, limit: number, count: number) => ({
  pagination: { prev_url: `${url}?page=${page - 1}&limit=${limit}`, next_url: `${url}?page=`, count, page, prev: page - 1, next: null },
  data: [],
});

/**
 * Follows `next_url` from the first page until there is no next page; every page must answer 200.
 * Returns the pages in order. Stops with a failure after `maxPages`, so a loop cannot hang the suite.
 */
export async function walkPages<T = { id: string }>(app: FastifyInstance, token: string, firstUrl: string, maxPages = 50) {
  const pages: Page<T>[] = [];
  let url: string | undefined = firstUrl;
  while (url !== undefined) {
    const res: { status: number; body: Page<T> } = await call<Page<T>>(app, 'GET', url, { token });
    expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
    pages.push(res.body);
    expect(pages.length, 'too many pages').toBeLessThanOrEqual(maxPages);
    url = res.body.pagination.next === null ? undefined : res.body.pagination.next_url;
  }
  return pages;
}
