import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { offsetWindow, pageWindow, paginate } from '../../src/http/pagination.ts';

const request = (url: string) => ({ url }) as FastifyRequest;

describe('pagination maths', () => {
  it('turns page into offset and lets an explicit offset win', () => {
    expect(offsetWindow({})).toEqual({ limit: 20, offset: 0 });
    expect(offsetWindow({ limit: 10, page: 3 })).toEqual({ limit: 10, offset: 20 });
    expect(offsetWindow({ limit: 10, page: 3, offset: 5 })).toEqual({ limit: 10, offset: 5 });
    expect(pageWindow({ page: 2, per_page: 50 })).toEqual({ limit: 50, offset: 50 });
  });

  it('builds the first page of several', () => {
    expect(paginate(request('/api/v1/consents?limit=10&session_id=s1'), { limit: 10, offset: 0 }, 25)).toEqual({
      prev_url: '/api/v1/consents?page=',
      next_url: '/api/v1/consents?page=2&limit=10&session_id=s1',
      count: 25, page: 1, prev: null, next: 2,
    });
  });

  it('builds a middle and a last page, dropping page and offset from the carried parameters', () => {
    const middle = paginate(request('/api/v1/consents?page=2&limit=10'), { limit: 10, offset: 10 }, 25);
    expect(middle).toMatchObject({ prev: 1, next: 3, page: 2, prev_url: '/api/v1/consents?page=1&limit=10', next_url: '/api/v1/consents?page=3&limit=10' });
    const last = paginate(request('/api/v1/consents?page=3&limit=10'), { limit: 10, offset: 20 }, 25);
    expect(last).toMatchObject({ next: null, next_url: '/api/v1/consents?page=', prev: 2 });
  });

  it('answers past the end with the true count and a way back', () => {
    const past = paginate(request('/api/v1/groups?page=9'), { limit: 20, offset: 160 }, 3);
    expect(past).toMatchObject({ count: 3, page: 9, next: null, prev: 8 });
  });

  it('carries an offset that is not a whole number of pages, so pages never overlap', () => {
    const odd = paginate(request('/api/v1/consents?offset=5&limit=10'), { limit: 10, offset: 5 }, 40);
    expect(odd.next_url).toBe('/api/v1/consents?page=2&offset=15&limit=10');
    expect(odd.prev_url).toBe('/api/v1/consents?page=1&offset=0&limit=10');
    expect(odd).toMatchObject({ page: 1, prev: 1, next: 2 });
  });

  it('numbers a page floor(offset/limit)+1, as the contract says, and its links the pages their windows start on', () => {
    const one = paginate(request('/api/v1/categories?offset=1&limit=3'), { limit: 3, offset: 1 }, 10);
    expect(one).toMatchObject({ page: 1, prev: 1, next: 2 });
    expect(one.prev_url).toBe('/api/v1/categories?page=1&offset=0&limit=3');
    expect(one.next_url).toBe('/api/v1/categories?page=2&offset=4&limit=3');
    const seven = paginate(request('/api/v1/categories?offset=7&limit=3'), { limit: 3, offset: 7 }, 8);
    expect(seven).toMatchObject({ page: 3, prev: 2, next: null });
    const twentyFive = paginate(request('/api/v1/consents?offset=25&limit=10'), { limit: 10, offset: 25 }, 100);
    expect(twentyFive).toMatchObject({ page: 3, prev: 2, next: 4 });
  });

  it('keeps a value that holds a ? whole in the links, and the parameters after it', () => {
    const links = paginate(request('/api/v1/consents?session_id=k?1&limit=2'), { limit: 2, offset: 0 }, 5);
    expect(links.next_url).toBe('/api/v1/consents?page=2&session_id=k%3F1&limit=2');
  });

  it('handles an empty list', () => {
    expect(paginate(request('/api/v1/groups'), { limit: 20, offset: 0 }, 0)).toEqual({
      prev_url: '/api/v1/groups?page=', next_url: '/api/v1/groups?page=', count: 0, page: 1, prev: null, next: null,
    });
  });
});
