import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import type { AccountScope, Principal } from './auth.ts';

/** Every module's routes: a Fastify plugin given the shared services. */
export type RoutesPlugin = FastifyPluginAsyncTypebox<{ services: Services }>;

/** The caller on a route whose rule guarantees a token. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`Route ${request.routeOptions.url} has no token rule`);
  return request.principal;
}

/** The account on an account-scoped route. */
export function scopeOf(request: FastifyRequest): AccountScope {
  if (!request.scope) throw new Error(`Route ${request.routeOptions.url} is not account-scoped`);
  return request.scope;
}
