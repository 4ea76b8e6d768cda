import type { FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { StringEnum } from './schemas.ts';
import type { Window } from '../db/list-page.ts';

export type { Window };

export const PaginationSchema = Type.Object({
  prev_url: Type.String(),
  next_url: Type.String(),
  count: Type.Integer(),
  page: Type.Integer(),
  prev: Type.Union([Type.Integer(), Type.Null()]),
  next: Type.Union([Type.Integer(), Type.Null()]),
});
export type Pagination = Static<typeof PaginationSchema>;

export const listOf = <T extends TSchema>(item: T) =>
  Type.Object({ pagination: PaginationSchema, data: Type.Array(item) });

const page = Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'Page number, from 1' });

/** limit/offset/sort/order (categories, consents, storage items and most lists); `page` works too. */
export function offsetQuery<S extends string, P extends Record<string, TSchema>>(sortFields: readonly S[], filters: P) {
  return Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    page: Type.Optional(page),
    sort: Type.Optional(StringEnum(sortFields)),
    order: Type.Optional(StringEnum(['asc', 'desc'] as const)),
    ...filters,
  });
}

/** page/per_page (groups, accounts). */
export function pageQuery<P extends Record<string, TSchema>>(filters: P) {
  return Type.Object({
    page: Type.Optional(page),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
    ...filters,
  });
}

export function offsetWindow(query: { limit?: number; offset?: number; page?: number }): Window {
  const limit = query.limit ?? 20;
  const offset = query.offset ?? ((query.page ?? 1) - 1) * limit;
  return { limit, offset };
}

export function pageWindow(query: { page?: number; per_page?: number }): Window {
  const limit = query.per_page ?? 20;
  return { limit, offset: ((query.page ?? 1) - 1) * limit };
}

/**
 * The page a window starts on, `floor(offset/limit)+1`, as the API contract defines it. Past an
 * offset that is not a whole number of pages, the links carry their offsets and the numbers name the
 * pages those windows start on: `offset=1&limit=3` is page 1, and so is its previous window (offset 0).
 */
function pageOf(offset: number, limit: number): number {
  return Math.floor(offset / limit) + 1;
}

/**
 * The pagination object of the contract. Links repeat the request's other query parameters after
 * `page`; an offset that is not a whole number of pages is carried along so that links never overlap.
 */
export function paginate(request: FastifyRequest, window: Window, count: number): Pagination {
  const { limit, offset } = window;
  // The first `?` ends the path; a later one belongs to a value (`session_id=k?1`).
  const at = request.url.indexOf('?');
  const search = at < 0 ? '' : request.url.slice(at + 1);
  // The links name the resource as routed (`/api/v1/categories`), not as spelt: a trailing slash or a
  // percent-encoded letter the router forgave stays out of them. List routes have no path parameters.
  const path = request.routeOptions?.url ?? (at < 0 ? request.url : request.url.slice(0, at));
  const kept = new URLSearchParams(search);
  kept.delete('page');
  kept.delete('offset');
  const aligned = offset % limit === 0;
  const link = (targetOffset: number | null) => {
    if (targetOffset === null) return `${path}?page=`;
    const params = new URLSearchParams({ page: String(pageOf(targetOffset, limit)) });
    if (!aligned) params.set('offset', String(targetOffset));
    for (const [key, value] of kept) params.append(key, value);
    return `${path}?${params.toString()}`;
  };
  const prevOffset = offset > 0 ? Math.max(0, offset - limit) : null;
  const nextOffset = offset + limit < count ? offset + limit : null;
  return {
    prev_url: link(prevOffset),
    next_url: link(nextOffset),
    count,
    page: pageOf(offset, limit),
    prev: prevOffset === null ? null : pageOf(prevOffset, limit),
    next: nextOffset === null ? null : pageOf(nextOffset, limit),
  };
}

export interface Sort<S extends string> {
  sort: S;
  order: 'asc' | 'desc';
}

/** The default order of most lists: the order records were made in. */
export const OLDEST_FIRST = { sort: 'created_at', order: 'asc' } as const satisfies Sort<'created_at'>;

/** The requested sort, or the resource's default; repositories add `id` in the same order as tie-break. */
export function sortOf<S extends string>(query: { sort?: S; order?: 'asc' | 'desc' }, defaults: Sort<S>): Sort<S> {
  return { sort: query.sort ?? defaults.sort, order: query.order ?? defaults.order };
}

/** The query of an offset list: its window and its order. */
interface OffsetListQuery<S extends string> {
  limit?: number;
  offset?: number;
  page?: number;
  sort?: S;
  order?: 'asc' | 'desc';
}

/**
 * A list route's answer: the rows `list` reads for the window and order the query asks for (the
 * resource's `defaults` where it names none), each written out by `toItem`, and their pagination.
 */
export async function listAnswer<S extends string, Row, Item>(
  request: FastifyRequest & { query: OffsetListQuery<S> },
  defaults: Sort<S>,
  list: (sort: Sort<S>, window: Window) => Promise<{ rows: Row[]; count: number }>,
  toItem: (row: Row) => Item,
): Promise<{ pagination: Pagination; data: Item[] }> {
  const window = offsetWindow(request.query);
  const { rows, count } = await list(sortOf(request.query, defaults), window);
  return { pagination: paginate(request, window, count), data: rows.map(toItem) };
}
