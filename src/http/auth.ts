import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isId } from '../db/ids.ts';
import type { ApiTokenRow, TokenType } from '../db/schema.ts';
import { after, settle, type MaybePromise } from '../lib/maybe-promise.ts';
import { hashToken, tokenTypeOf } from '../lib/token-secret.ts';
import { SYSTEM_ACTOR, type Actor } from '../lib/actor-context.ts';
import {
  EXPIRED_TOKEN,
  ForbiddenError,
  INVALID_TOKEN,
  NEEDS_ACCOUNT,
  NEEDS_ADMIN,
  NEEDS_PARTNER,
  NEEDS_USER,
  UnauthorizedError,
} from './app-errors.ts';
import { consume, consumeBoth, type Limiters, type ThrottleName } from './rate-limit.ts';

/**
 * What a route declares about its callers (`config.auth`):
 * - `none`: operational routes (health, docs), neither authenticated nor limited;
 * - `public`: no token needed; limited per client IP;
 * - `any`, `partner`, `user`, `partner-or-user`: a valid token of those types;
 * - `account`: a token that resolves to one account (`request.scope`).
 * `admin: true` makes an account route a write that a non-admin member may not make.
 */
export type AuthRule = 'none' | 'public' | 'any' | 'partner' | 'user' | 'partner-or-user' | 'account';

export interface Principal {
  tokenId: string;
  tokenHash: string;
  type: TokenType;
  kind: ApiTokenRow['kind'];
  partnerId: string | null;
  userId: string | null;
  /** Account tokens only: the account they act on. */
  accountId: string | null;
}

export interface AccountScope {
  accountId: string;
  isAdmin: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
    admin?: boolean;
    /** An extra per-IP limiter on top of the general one. */
    throttle?: ThrottleName;
  }
  interface FastifyRequest {
    principal: Principal | null;
    scope: AccountScope | null;
  }
}

/** What the hook reads, given by the service layer: http/ knows no module. */
export interface AuthStores {
  /** The token row with this SHA-256, from memory when warm. */
  tokens: { byHash(hash: string): MaybePromise<ApiTokenRow | undefined> };
  /** The accounts a user belongs to; `accountId`, when given, is one the caller asks for. */
  memberships: { of(userId: string, accountId?: string): Promise<Array<{ account_id: string; admin: boolean }>> };
  limiters: Limiters;
}

type Lookup = { principal: Principal } | { failure: string } | undefined;

function toPrincipal(row: ApiTokenRow): Principal {
  return {
    tokenId: row.id,
    tokenHash: row.token_hash,
    type: row.token_type,
    kind: row.kind,
    partnerId: row.token_type === 'user' ? null : row.partner_id,
    userId: row.token_type === 'partner' ? null : row.user_id,
    accountId: row.token_type === 'account' ? row.account_id : null,
  };
}

/** A cached token is judged at once: the warm path of every request spends no promise on it. */
function lookUp(stores: AuthStores, request: FastifyRequest): MaybePromise<Lookup> {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (!token || !tokenTypeOf(token)) return { failure: INVALID_TOKEN };
  return after(stores.tokens.byHash(hashToken(token)), judge);
}

function judge(row: ApiTokenRow | undefined): Lookup {
  if (!row) return { failure: INVALID_TOKEN };
  if (row.revoked_at || (row.expires_at && row.expires_at.getTime() <= Date.now())) {
    return { failure: EXPIRED_TOKEN };
  }
  return { principal: toPrincipal(row) };
}

/** `?account_id=` as sent (before validation, which runs after this hook). */
function requestedAccount(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.account_id;
  return value === undefined ? undefined : typeof value === 'string' ? value : '';
}

async function resolveMembership(stores: AuthStores, principal: Principal, request: FastifyRequest): Promise<AccountScope> {
  if (principal.type !== 'user') throw new UnauthorizedError(NEEDS_ACCOUNT);
  const sent = requestedAccount(request);
  if (sent !== undefined && !isId(sent)) throw new UnauthorizedError(NEEDS_ACCOUNT);
  const requested = sent?.toLowerCase();
  const memberships = await stores.memberships.of(principal.userId!, requested);
  const chosen = requested === undefined
    ? (memberships.length === 1 ? memberships[0] : undefined)
    : memberships.find((m) => m.account_id === requested);
  if (!chosen) throw new UnauthorizedError(NEEDS_ACCOUNT);
  return { accountId: chosen.account_id, isAdmin: chosen.admin };
}

function requireType(rule: AuthRule, principal: Principal): void {
  if (rule === 'partner' && principal.type !== 'partner') throw new UnauthorizedError(NEEDS_PARTNER);
  if (rule === 'user' && principal.type !== 'user') throw new UnauthorizedError(NEEDS_USER);
  if (rule === 'partner-or-user' && principal.type === 'account') {
    throw new UnauthorizedError('API key must belong to a partner or a user');
  }
}

/** Counts the request: against its token, or its client IP without one; then the route's own throttle. */
function count(stores: AuthStores, request: FastifyRequest, reply: FastifyReply, principal: Principal | null): MaybePromise<void> {
  const { throttle } = request.routeOptions.config;
  const { general: perToken, owner } = stores.limiters;
  // An account token counts for the user or partner who made it.
  const ownerKey = principal && (principal.userId ? `u:${principal.userId}` : principal.partnerId ? `p:${principal.partnerId}` : undefined);
  const general = principal
    ? ownerKey ? consumeBoth(perToken, `t:${principal.tokenId}`, owner, ownerKey, reply) : consume(perToken, `t:${principal.tokenId}`, reply)
    : throttle ? undefined : consume(stores.limiters.general, `ip:${request.ip}`, reply);
  if (!throttle) return general;
  return after(general, () => consume(stores.limiters[throttle], `ip:${request.ip}`, reply));
}

/** Applies the route's rule to the caller; only an account route for a user token may need the database. */
function authorise(stores: AuthStores, request: FastifyRequest, found: Lookup): MaybePromise<void> {
  const { auth: rule, admin } = request.routeOptions.config;
  // Routes all declare a rule; only the not-found handler has none.
  if (rule === 'public' || rule === undefined) return;
  const principal = found && 'principal' in found ? found.principal : null;
  if (!principal) throw new UnauthorizedError(found && 'failure' in found ? found.failure : INVALID_TOKEN);
  request.principal = principal;
  requireType(rule, principal);
  if (rule !== 'account') return;
  const scoped = (scope: AccountScope) => {
    request.scope = scope;
    if (admin && !scope.isAdmin) throw new ForbiddenError(NEEDS_ADMIN);
  };
  if (principal.type === 'account') {
    // An account token acts on its own account: naming another one is a mistake, not to be ignored.
    const requested = requestedAccount(request);
    if (requested !== undefined && requested.toLowerCase() !== principal.accountId) throw new UnauthorizedError(NEEDS_ACCOUNT);
    return scoped({ accountId: principal.accountId!, isAdmin: true });
  }
  return resolveMembership(stores, principal, request).then(scoped);
}

function authenticate(stores: AuthStores, request: FastifyRequest, reply: FastifyReply): MaybePromise<void> {
  if (request.routeOptions.config.auth === 'none') return;
  return after(lookUp(stores, request), (found) => {
    const principal = found && 'principal' in found ? found.principal : null;
    return after(count(stores, request, reply, principal), () => authorise(stores, request, found));
  });
}

/** The caller on a route whose rule guarantees a token. */
/** Who a caller is for the audit log: a user (session or user token), an account token, a partner; nobody is the system. */
export function actorOf(principal: Principal | null): Actor {
  if (!principal) return SYSTEM_ACTOR;
  if (principal.type === 'user') return { type: 'user', id: principal.userId };
  if (principal.type === 'account') return { type: 'token', id: principal.tokenId };
  return { type: 'partner', id: principal.partnerId };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`Route ${request.routeOptions.url} has no token rule`);
  return request.principal;
}

/** The account on an account-scoped route. */
export function scopeOf(request: FastifyRequest): AccountScope {
  if (!request.scope) throw new Error(`Route ${request.routeOptions.url} is not account-scoped`);
  return request.scope;
}

/**
 * One onRequest hook: identify the caller, count the request, then apply the route's rule. Written
 * with a callback rather than as an async function: a caller whose token, limit and scope are all
 * in memory is admitted without a promise.
 */
export function registerAuth(app: FastifyInstance, stores: AuthStores): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('scope', null);

  app.addHook('onRequest', (request, reply, done) => settle(() => authenticate(stores, request, reply), done));
}
