import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** A JSON body of one response of one operation, straight from the generated types. */
export type Body<P extends keyof paths, M extends keyof paths[P], S extends number = 200> =
  paths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer T } } } } ? T : never;

export type Me = Body<'/api/v1/me', 'get'>['data'];
export type Account = Body<'/api/v1/accounts/{id}', 'get'>;
export type Group = Body<'/api/v1/groups/{id}', 'get'>;
export type Category = Body<'/api/v1/categories/{id}', 'get'>['data'];
export type StorageItem = Body<'/api/v1/storage-items/{id}', 'get'>['data'];
export type Consent = Body<'/api/v1/consents/{id}', 'get'>['data'];
export type AiAction = Body<'/api/v1/ai-actions/{id}', 'get'>['data'];
export type AccountUser = Body<'/api/v1/account-users/{id}', 'get'>['data'];
export type Invitation = Body<'/api/v1/account-invitations', 'get'>['data'][number];
export type ApiToken = Body<'/api/v1/api-tokens', 'get'>['data'][number];
export type Scan = Body<'/api/v1/scans/{id}', 'get'>['data'];
export type Service = Body<'/api/v1/services/{id}', 'get'>['data'];
export type Pagination = Body<'/api/v1/categories', 'get'>['pagination'];

/** Where requests get their token and, for a user's token, the account they act on. */
export interface Credentials {
  token(): string | undefined;
  accountId(): string | undefined;
  /** The token was refused as unknown, revoked or expired. */
  expired(token: string): void;
}

const DEAD_TOKEN = ['Invalid API Key', 'Missing, invalid or expired API token'];

/** Routes that act on one account: a user's token names it with `account_id`. */
const ACCOUNT_SCOPED = /^\/api\/v1\/(categories|storage-items|services|consents|account-users|account-invitations|ai-actions|scans|stats|banner|webhooks|audit-log|notices|tcf)(\/|$)/;

export class ApiError extends Error {
  constructor(readonly status: number, readonly messages: string[]) {
    super(messages.join(' '));
  }
}

/** The error bodies of the API in words: every form of the contract, never JSON on screen. */
export function wordsOf(body: unknown, status: number): string[] {
  const value = body as { errors?: { message?: string; error?: string }[]; error?: { message?: string } } | undefined;
  const listed = value?.errors?.map((e) => e.error ?? e.message).filter((m): m is string => typeof m === 'string') ?? [];
  if (listed.length > 0) return listed;
  if (typeof value?.error?.message === 'string') return [value.error.message];
  if (status === 0) return ['The server could not be reached. Check your connection and try again.'];
  return [`The server answered with an unexpected error (HTTP ${status}).`];
}

export function createApi(credentials: Credentials) {
  const client = createClient<paths>({ baseUrl: '' });
  const auth: Middleware = {
    async onRequest({ request }) {
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? credentials.token();
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      const url = new URL(request.url);
      const accountId = credentials.accountId();
      if (accountId && token?.startsWith('csu_') && ACCOUNT_SCOPED.test(url.pathname) && !url.searchParams.has('account_id')) {
        url.searchParams.set('account_id', accountId);
        // A request cannot take another's streamed body: the body is read and sent again.
        const body = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
        return new Request(url, { method: request.method, headers: request.headers, body: body === '' ? undefined : body, signal: request.signal });
      }
      return request;
    },
    async onResponse({ request, response }) {
      const token = credentials.token();
      if (response.status !== 401 || !token || request.headers.get('authorization') !== `Bearer ${token}`) return response;
      const body: unknown = await response.clone().json().catch(() => undefined);
      if (wordsOf(body, 401).some((message) => DEAD_TOKEN.includes(message))) credentials.expired(token);
      return response;
    },
  };
  client.use(auth);
  return client;
}

/** The data of a call, or an `ApiError` in words. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiError(0, wordsOf(undefined, 0));
  }
  if (result.error !== undefined || !result.response.ok) throw new ApiError(result.response.status, wordsOf(result.error, result.response.status));
  return result.data as T;
}
