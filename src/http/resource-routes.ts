import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { after, type MaybePromise } from '../lib/maybe-promise.ts';
import { listOf, type Pagination } from './pagination.ts';
import { IdParams, MessageSchema } from './schemas.ts';

/** The rule of the routes that read a resource, and of those that change it. */
export interface Access {
  read: FastifyContextConfig;
  write: FastifyContextConfig;
}

/** A resource of an account: its members read it, its admins change it. */
export const ACCOUNT_ACCESS: Access = { read: { auth: 'account' }, write: { auth: 'account', admin: true } };

/** One rule for reading and changing alike. */
export const sameAccess = (rule: FastifyContextConfig): Access => ({ read: rule, write: rule });

/** A resource whose routes each give their own rule (`route()` with a rule of its own). */
const NO_RULE: Access = { read: {}, write: {} };

type Of<S> = S extends TSchema ? Static<S> : undefined;

/** A request as a route's schemas type it. */
export type RouteRequest<P = undefined, Q = undefined, B = undefined> = FastifyRequest<{ Params: Of<P>; Querystring: Of<Q>; Body: Of<B> }>;

type Handler<P, Q, B, Answer> = (request: RouteRequest<P, Q, B>, reply: FastifyReply) => MaybePromise<Answer>;

/** What a route says of itself, whatever its shape. */
export interface RouteParts<Q, B> {
  operationId: string;
  summary: string;
  querystring?: Q;
  body?: B;
  /** The answers of its own checks, beside those route-contract.ts gives every route of its kind. */
  errors?: Record<number, TSchema>;
  /** Besides the access rule: a throttle, the single 400 form. */
  config?: FastifyContextConfig;
  /** Runs before the body is read: a refusal that does not depend on what the body holds. */
  preValidation?: (request: FastifyRequest) => Promise<void>;
}

type Answered<Q, B, A> = RouteParts<Q, B> & { answer: A };
type ById = typeof IdParams;

/**
 * The routes of one resource (`/categories`, `/groups`), declared by their shape: its list, one
 * record by id, creating one (201), changing one, deleting one, and an action on one
 * (`POST /ai-actions/{id}/revert`). Each route gives its own parts — operationId, summary, query
 * and body schemas, its answer's schema, the errors of its own checks — and its handler; the shape
 * adds the method, the path and its `id`, the success status and the resource's read or write rule.
 * Security and the errors every route of a kind answers are added at registration
 * (route-contract.ts), `account_id` on account routes (account-parameter.ts).
 */
export function resourceRoutes(app: FastifyInstance, resource: { path?: string; tags: string[]; access?: Access }) {
  const { path = '', tags, access = NO_RULE } = resource;

  function declare<Q, B>(
    method: RouteOptions['method'], url: string, rule: FastifyContextConfig, parts: RouteParts<Q, B>,
    params: TSchema | undefined, response: Record<number, TSchema>, handler: RouteOptions['handler'],
  ): void {
    const { operationId, summary, querystring, body, errors, config, preValidation } = parts;
    app.route({
      method,
      url,
      config: { ...rule, ...config },
      ...(preValidation && { preValidation }),
      schema: {
        operationId, tags, summary,
        ...(params && { params }),
        ...(querystring && { querystring }),
        ...(body && { body }),
        response: { ...response, ...errors },
      },
      handler,
    });
  }

  return {
    /** `GET /things`: a page of the records the query asks for. */
    list<Q extends TSchema, I extends TSchema>(
      parts: RouteParts<Q, undefined> & { querystring: Q; item: I },
      handler: Handler<undefined, Q, undefined, { pagination: Pagination; data: Static<I>[] }>,
    ): void {
      declare('GET', path, access.read, parts, undefined, { 200: listOf(parts.item) }, handler as RouteOptions['handler']);
    },

    /** `POST /things`: creates one, answered 201. */
    create<B extends TSchema, A extends TSchema>(parts: Answered<undefined, B, A> & { body: B }, handler: Handler<undefined, undefined, B, Static<A>>): void {
      declare('POST', path, access.write, parts, undefined, { 201: parts.answer }, (request, reply) =>
        after(handler(request as RouteRequest<undefined, undefined, B>, reply), (created) => reply.code(201).send(created)));
    },

    /** `GET /things/{id}`: one record. */
    one<Q extends TSchema | undefined, A extends TSchema>(parts: Answered<Q, undefined, A>, handler: Handler<ById, Q, undefined, Static<A>>): void {
      declare('GET', `${path}/:id`, access.read, parts, IdParams, { 200: parts.answer }, handler as RouteOptions['handler']);
    },

    /** `PUT /things/{id}` (or `PATCH`): changes one. */
    change<B extends TSchema, A extends TSchema>(
      parts: Answered<undefined, B, A> & { body: B; method?: 'PUT' | 'PATCH' },
      handler: Handler<ById, undefined, B, Static<A>>,
    ): void {
      declare(parts.method ?? 'PUT', `${path}/:id`, access.write, parts, IdParams, { 200: parts.answer }, handler as RouteOptions['handler']);
    },

    /** `DELETE /things/{id}`: the handler removes it; the answer is `{ message }`. */
    remove(parts: RouteParts<undefined, undefined> & { message: string }, handler: Handler<ById, undefined, undefined, unknown>): void {
      const answer = { message: parts.message };
      declare('DELETE', `${path}/:id`, access.write, parts, IdParams, { 200: MessageSchema }, (request, reply) =>
        after(handler(request as RouteRequest<ById>, reply), () => answer));
    },

    /**
     * Any other route, `url` below the resource's path (`/approve`): the shapes above fill nothing in,
     * so it gives its method, its rule (the resource's `read` or `write` one, or its own), its path
     * parameters and every answer of its own.
     */
    route<P extends TSchema | undefined, Q extends TSchema | undefined, B extends TSchema | undefined>(
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string,
      parts: RouteParts<Q, B> & { rule: keyof Access | FastifyContextConfig; params?: P; response: Record<number, TSchema> },
      handler: Handler<P, Q, B, unknown>,
    ): void {
      const rule = typeof parts.rule === 'string' ? access[parts.rule] : parts.rule;
      declare(method, `${path}${url}`, rule, parts, parts.params, parts.response, handler as RouteOptions['handler']);
    },

    /** `POST /things/{id}/<action>`: does something to one record. */
    act<B extends TSchema | undefined, A extends TSchema>(
      action: string, parts: Answered<undefined, B, A>, handler: Handler<ById, undefined, B, Static<A>>,
    ): void {
      declare('POST', `${path}/:id/${action}`, access.write, parts, IdParams, { 200: parts.answer }, handler as RouteOptions['handler']);
    },
  };
}
