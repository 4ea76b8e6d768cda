/**
 * The shared security table: every route of the app, walked with no token, malformed and revoked
 * tokens, each wrong token type, another tenant's records and a non-admin member. Each route's rule
 * is written here by hand, not read from the app: a route that is missing, or declares another rule,
 * fails the suite.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuthRule } from '../../src/http/auth.ts';
import { EXPIRED_TOKEN, INVALID_TOKEN, NEEDS_ACCOUNT, NEEDS_ADMIN, NEEDS_PARTNER, NEEDS_USER } from '../../src/http/app-errors.ts';
import { newId } from '../../src/db/ids.ts';
import { call } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';
import { revokedToken, type Tenant } from '../helpers/tenants.ts';

type Who = 'partner' | 'admin' | 'member' | 'account';
const EVERYONE: Who[] = ['partner', 'admin', 'member', 'account'];

/** A tenant with its token ids and one record of each account resource (`records.consent`…). */
type Known = Tenant & { tokenIds: Record<Who, string>; records: Record<string, string> };

/** One record of each resource per tenant, stored directly, for the `path` and `foreign` checks. */
async function seedRecords(tenant: Tenant): Promise<Record<string, string>> {
  const db = t.services.db;
  const consent = newId();
  await db.insertInto('consents').values({
    id: consent, account_id: tenant.account.id, session_id: 's', gpc: false, accept_type: 'all',
  }).execute();
  const aiAction = newId();
  await db.insertInto('ai_actions').values({
    id: aiAction, account_id: tenant.account.id, action_type: 'autofill', actionable_type: 'StorageItem', actionable_id: newId(),
    suggested_params: '{}', previous_params: '{}', confidence: 0.5, source: 'test',
  }).execute();
  const category = newId();
  await db.insertInto('categories').values({ id: category, account_id: tenant.account.id, name: 'C', slug: 'c', default_language: 'en' }).execute();
  const service = newId();
  await db.insertInto('services').values({ id: service, account_id: tenant.account.id, category_id: category, name: 'S', slug: 's' }).execute();
  const storageItem = newId();
  await db.insertInto('storage_items').values({ id: storageItem, account_id: tenant.account.id, category_id: category, name: 's' }).execute();
  const scan = newId();
  // Finished: the runner never takes it up, so no browser starts.
  await db.insertInto('scans').values({ id: scan, account_id: tenant.account.id, owner_id: tenant.partner.id, status: 'completed', starting_url: `https://${tenant.account.domain}/`, max_pages: 5 }).execute();
  const accountUser = (await db.selectFrom('account_users').select('id')
    .where('account_id', '=', tenant.account.id).where('user_id', '=', tenant.member.id).executeTakeFirstOrThrow()).id;
  const invitation = newId();
  await db.insertInto('account_invitations').values({
    id: invitation, account_id: tenant.account.id, name: 'I', email: `${invitation}@example.test`, role: 'member',
    secret_hash: invitation, invited_by_type: 'API', invited_by_id: null, expires_at: new Date(Date.now() + 86_400_000),
  }).execute();
  const webhook = newId();
  await db.insertInto('webhook_endpoints').values({
    id: webhook, account_id: tenant.account.id, url: 'https://hooks.example.test/', events: ['scan.completed'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', enabled: false,
  }).execute();
  const delivery = newId();
  await db.insertInto('webhook_deliveries').values({
    id: delivery, account_id: tenant.account.id, endpoint_id: webhook, event: 'scan.completed', payload: '{}', status: 'parked', next_attempt_at: new Date(),
  }).execute();
  const notice = createHash('sha256').update(tenant.account.id).digest('hex');
  await db.insertInto('notice_snapshots').values({ account_id: tenant.account.id, hash: notice, content: '{}' }).execute();
  return { consent, aiAction, category, service, storageItem, accountUser, invitation, scan, webhook, delivery, notice };
}

interface Entry {
  /** Who may call the route, stated here by hand: a route that declares another rule fails the walk. */
  rule: AuthRule;
  /** A write that needs an account admin. */
  admin?: true;
  /** Path for the caller's own tenant (wrong-type checks must not fail on the record). */
  path?: (own: Known) => string;
  /** The same route on another tenant's record: 404 for every caller the guard lets through. */
  foreign?: (other: Known) => string;
  body?: unknown;
  /** Refusals the handler (not the route rule) makes, e.g. a member deleting an account. */
  refused?: Partial<Record<Who, [number, string]>>;
}

const group = { group: { name: 'G' } };
const account = { account: { name: 'A', domain: 'a.example.com' } };
const consent = { consent: { session_id: 's', user_preferences: { accept_type: 'all' } } };

/** Keyed by `METHOD /url` exactly as the router knows it. */
const TABLE: Record<string, Entry> = {
  'GET /healthz': { rule: 'none' },
  'GET /readyz': { rule: 'none' },
  'GET /api/v1/openapi.json': { rule: 'none' },
  'GET /': { rule: 'none' },
  'GET /banner-preview.html': { rule: 'none' },
  'GET /*': { rule: 'none' },
  'POST /api/v1/auth': { rule: 'public', body: { email: 'x@example.test', password: 'whatever' } },
  'DELETE /api/v1/auth': { rule: 'any' },
  'PUT /api/v1/password': { rule: 'user', body: { user: { current_password: 'x', password: 'y', password_confirmation: 'y' } } },
  'POST /api/v1/password/reset': { rule: 'public', body: { email: 'x@example.test' } },
  'PUT /api/v1/password/reset': { rule: 'public', body: { token: 'x', password: 'whatever1', password_confirmation: 'whatever1' } },
  'POST /api/v1/users': { rule: 'public', body: { user: { name: 'x', email: 'x', password: 'x' } } },
  'GET /api/v1/me': { rule: 'any' },
  'GET /api/v1/api-tokens': { rule: 'any' },
  'POST /api/v1/api-tokens': { rule: 'partner-or-user', body: { name: 'x' } },
  'DELETE /api/v1/api-tokens/:id': { rule: 'any', foreign: (o) => `/api/v1/api-tokens/${o.tokenIds.admin}` },
  'GET /api/v1/groups': { rule: 'partner' },
  'POST /api/v1/groups': { rule: 'partner', body: group },
  'GET /api/v1/groups/:id': { rule: 'partner', path: (t) => `/api/v1/groups/${t.group.id}`, foreign: (o) => `/api/v1/groups/${o.group.id}` },
  'PUT /api/v1/groups/:id': { rule: 'partner', path: (t) => `/api/v1/groups/${t.group.id}`, foreign: (o) => `/api/v1/groups/${o.group.id}`, body: group },
  'DELETE /api/v1/groups/:id': { rule: 'partner', path: (t) => `/api/v1/groups/${t.group.id}`, foreign: (o) => `/api/v1/groups/${o.group.id}` },
  'GET /api/v1/accounts': { rule: 'any' },
  'POST /api/v1/accounts': { rule: 'any', body: account, refused: { account: [403, 'Account tokens cannot create accounts'] } },
  'GET /api/v1/accounts/:id': { rule: 'any', path: (t) => `/api/v1/accounts/${t.account.id}`, foreign: (o) => `/api/v1/accounts/${o.account.id}` },
  'PUT /api/v1/accounts/:id': {
    rule: 'any',
    path: (t) => `/api/v1/accounts/${t.account.id}`, foreign: (o) => `/api/v1/accounts/${o.account.id}`,
    body: account, refused: { member: [403, NEEDS_ADMIN] },
  },
  'PATCH /api/v1/accounts/:id': {
    rule: 'any',
    path: (t) => `/api/v1/accounts/${t.account.id}`, foreign: (o) => `/api/v1/accounts/${o.account.id}`,
    body: account, refused: { member: [403, NEEDS_ADMIN] },
  },
  'GET /api/v1/consents': { rule: 'account' },
  'POST /api/v1/consents': { rule: 'account', admin: true, body: consent },
  'GET /api/v1/consents/:id': { rule: 'account', path: (t) => `/api/v1/consents/${t.records.consent}`, foreign: (o) => `/api/v1/consents/${o.records.consent}` },
  'GET /api/v1/consents/verify': { rule: 'account' },
  'GET /api/v1/consents/checkpoints': { rule: 'account' },
  'GET /api/v1/consents/export': { rule: 'account' },
  'POST /api/v1/consents/erase': { rule: 'account', admin: true, body: { session_id: 's' } },
  'GET /api/v1/consents/erasures': { rule: 'account' },
  'GET /api/v1/stats': { rule: 'account' },
  'GET /api/v1/groups/:id/stats': { rule: 'partner', path: (t) => `/api/v1/groups/${t.group.id}/stats`, foreign: (o) => `/api/v1/groups/${o.group.id}/stats` },
  'GET /widget/:account_id/consents/:id': { rule: 'public', path: (t) => `/widget/${t.account.id}/consents/${t.records.consent}?session_id=s` },
  'GET /api/v1/ai-actions': { rule: 'account' },
  'GET /api/v1/ai-actions/:id': { rule: 'account', path: (t) => `/api/v1/ai-actions/${t.records.aiAction}`, foreign: (o) => `/api/v1/ai-actions/${o.records.aiAction}` },
  'POST /api/v1/ai-actions/:id/revert': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/ai-actions/${t.records.aiAction}/revert`, foreign: (o) => `/api/v1/ai-actions/${o.records.aiAction}/revert`,
  },
  'POST /api/v1/ai-actions/:id/accept': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/ai-actions/${t.records.aiAction}/accept`, foreign: (o) => `/api/v1/ai-actions/${o.records.aiAction}/accept`,
  },
  'POST /api/v1/ai-actions/:id/reject': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/ai-actions/${t.records.aiAction}/reject`, foreign: (o) => `/api/v1/ai-actions/${o.records.aiAction}/reject`,
  },
  'GET /api/v1/categories': { rule: 'account' },
  'POST /api/v1/categories': { rule: 'account', admin: true, body: { category: { name: 'Security' } } },
  'GET /api/v1/categories/:id': { rule: 'account', path: (t) => `/api/v1/categories/${t.records.category}`, foreign: (o) => `/api/v1/categories/${o.records.category}` },
  'PUT /api/v1/categories/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/categories/${t.records.category}`, foreign: (o) => `/api/v1/categories/${o.records.category}`,
    body: { category: { name: 'Stolen' } },
  },
  'DELETE /api/v1/categories/:id': { rule: 'account', admin: true, path: (t) => `/api/v1/categories/${t.records.category}`, foreign: (o) => `/api/v1/categories/${o.records.category}` },
  'GET /api/v1/services': { rule: 'account' },
  'POST /api/v1/services': { rule: 'account', admin: true, body: { service: { name: 'Security' } } },
  'GET /api/v1/services/:id': { rule: 'account', path: (t) => `/api/v1/services/${t.records.service}`, foreign: (o) => `/api/v1/services/${o.records.service}` },
  'PUT /api/v1/services/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/services/${t.records.service}`, foreign: (o) => `/api/v1/services/${o.records.service}`,
    body: { service: { name: 'Stolen' } },
  },
  'DELETE /api/v1/services/:id': { rule: 'account', admin: true, path: (t) => `/api/v1/services/${t.records.service}`, foreign: (o) => `/api/v1/services/${o.records.service}` },
  'GET /api/v1/storage-items': { rule: 'account' },
  'POST /api/v1/storage-items': { rule: 'account', admin: true, body: { storage_item: { name: 'security' } } },
  'POST /api/v1/storage-items/classify': { rule: 'account', admin: true },
  'POST /api/v1/storage-items/approve': { rule: 'account', admin: true, body: { ids: [newId()] } },
  'GET /api/v1/storage-items/:id': {
    rule: 'account',
    path: (t) => `/api/v1/storage-items/${t.records.storageItem}`, foreign: (o) => `/api/v1/storage-items/${o.records.storageItem}`,
  },
  'PUT /api/v1/storage-items/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/storage-items/${t.records.storageItem}`, foreign: (o) => `/api/v1/storage-items/${o.records.storageItem}`,
    body: { storage_item: { name: 'stolen' } },
  },
  'DELETE /api/v1/storage-items/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/storage-items/${t.records.storageItem}`, foreign: (o) => `/api/v1/storage-items/${o.records.storageItem}`,
  },
  'GET /api/v1/scans': { rule: 'account' },
  // Off the account's domain (422): the table never queues a scan, so no browser starts.
  'POST /api/v1/scans': { rule: 'account', admin: true, body: { scan: { starting_url: 'https://elsewhere.invalid/' } } },
  'GET /api/v1/scans/:id': { rule: 'account', path: (t) => `/api/v1/scans/${t.records.scan}`, foreign: (o) => `/api/v1/scans/${o.records.scan}` },
  'DELETE /api/v1/scans/:id': { rule: 'account', admin: true, path: (t) => `/api/v1/scans/${t.records.scan}`, foreign: (o) => `/api/v1/scans/${o.records.scan}` },
  // The scan holds no report (422): nothing is removed on its word.
  'POST /api/v1/scans/:id/remove-unseen-items': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/scans/${t.records.scan}/remove-unseen-items`, foreign: (o) => `/api/v1/scans/${o.records.scan}/remove-unseen-items`,
    body: { storage_item_ids: ['00000000-0000-7000-8000-000000000000'] },
  },
  'GET /api/v1/webhooks': { rule: 'account' },
  // A loopback address (422): the table never reaches the network.
  'POST /api/v1/webhooks': { rule: 'account', admin: true, body: { webhook: { url: 'https://127.0.0.1/', events: ['scan.completed'] } } },
  'GET /api/v1/webhooks/:id': { rule: 'account', path: (t) => `/api/v1/webhooks/${t.records.webhook}`, foreign: (o) => `/api/v1/webhooks/${o.records.webhook}` },
  'PATCH /api/v1/webhooks/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/webhooks/${t.records.webhook}`, foreign: (o) => `/api/v1/webhooks/${o.records.webhook}`,
    body: { webhook: { description: 'Stolen' } },
  },
  'DELETE /api/v1/webhooks/:id': { rule: 'account', admin: true, path: (t) => `/api/v1/webhooks/${t.records.webhook}`, foreign: (o) => `/api/v1/webhooks/${o.records.webhook}` },
  'POST /api/v1/webhooks/:id/rotate-secret': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/webhooks/${t.records.webhook}/rotate-secret`, foreign: (o) => `/api/v1/webhooks/${o.records.webhook}/rotate-secret`,
  },
  'GET /api/v1/webhooks/:id/deliveries': {
    rule: 'account',
    path: (t) => `/api/v1/webhooks/${t.records.webhook}/deliveries`, foreign: (o) => `/api/v1/webhooks/${o.records.webhook}/deliveries`,
  },
  // Both the endpoint and the delivery of another tenant, and each of them alone: 404 every time.
  'POST /api/v1/webhooks/:id/deliveries/:delivery_id/retry': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/webhooks/${t.records.webhook}/deliveries/${t.records.delivery}/retry`,
    foreign: (o) => `/api/v1/webhooks/${o.records.webhook}/deliveries/${o.records.delivery}/retry`,
  },
  'GET /api/v1/account-users': { rule: 'account' },
  'GET /api/v1/account-users/:id': {
    rule: 'account',
    path: (t) => `/api/v1/account-users/${t.records.accountUser}`, foreign: (o) => `/api/v1/account-users/${o.records.accountUser}`,
  },
  'PUT /api/v1/account-users/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/account-users/${t.records.accountUser}`, foreign: (o) => `/api/v1/account-users/${o.records.accountUser}`,
    body: { account_user: { roles: { admin: true } } },
  },
  'DELETE /api/v1/account-users/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/account-users/${t.records.accountUser}`, foreign: (o) => `/api/v1/account-users/${o.records.accountUser}`,
  },
  'GET /api/v1/account-invitations': { rule: 'account' },
  'POST /api/v1/account-invitations': { rule: 'account', admin: true, body: { name: 'x', email: 'x@example.test', role: 'member' } },
  'GET /api/v1/account-invitations/:id': {
    rule: 'account',
    path: (t) => `/api/v1/account-invitations/${t.records.invitation}`, foreign: (o) => `/api/v1/account-invitations/${o.records.invitation}`,
  },
  'PUT /api/v1/account-invitations/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/account-invitations/${t.records.invitation}`, foreign: (o) => `/api/v1/account-invitations/${o.records.invitation}`,
    body: { account_invitation: { name: 'Stolen' } },
  },
  'DELETE /api/v1/account-invitations/:id': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/account-invitations/${t.records.invitation}`, foreign: (o) => `/api/v1/account-invitations/${o.records.invitation}`,
  },
  'POST /api/v1/account-invitations/:id/resend': {
    rule: 'account', admin: true,
    path: (t) => `/api/v1/account-invitations/${t.records.invitation}/resend`, foreign: (o) => `/api/v1/account-invitations/${o.records.invitation}/resend`,
  },
  'POST /api/v1/account-invitations/accept': { rule: 'public', body: { invitation: { token: 'x', password: 'whatever' } } },
  'GET /api/v1/banner': { rule: 'account' },
  'PATCH /api/v1/banner': { rule: 'account', admin: true, body: { banner: { layout: 'bar' } } },
  'POST /api/v1/banner/preview': { rule: 'account', body: { banner: { layout: 'bar' } } },
  'POST /api/v1/banner/reconsent': { rule: 'account', admin: true },
  'GET /api/v1/notices': { rule: 'account' },
  'GET /api/v1/notices/:hash': { rule: 'account', path: (t) => `/api/v1/notices/${t.records.notice}`, foreign: (o) => `/api/v1/notices/${o.records.notice}` },
  'GET /api/v1/audit-log': { rule: 'account' },
  'GET /api/v1/tcf/vendor-list': { rule: 'account' },
  'GET /widget/:account_id.js': { rule: 'public', path: (t) => `/widget/${t.account.id}.js` },
  'GET /widget/gpp.:hash.js': { rule: 'public', path: () => '/widget/gpp.0000000000000000.js' },
  'GET /widget/extras.:hash.js': { rule: 'public', path: () => '/widget/extras.0000000000000000.js' },
  'GET /widget/:account_id/declaration.json': { rule: 'public', path: (t) => `/widget/${t.account.id}/declaration.json` },
  'GET /widget/:account_id/declaration': { rule: 'public', path: (t) => `/widget/${t.account.id}/declaration` },
  'GET /widget/tcf.:hash.js': { rule: 'public', path: () => '/widget/tcf.0000000000000000.js' },
  'GET /widget/:account_id/config.json': { rule: 'public', path: (t) => `/widget/${t.account.id}/config.json` },
  'GET /widget/:account_id/region': { rule: 'public', path: (t) => `/widget/${t.account.id}/region` },
  'GET /widget/:account_id/tcf-vendors.json': { rule: 'public', path: (t) => `/widget/${t.account.id}/tcf-vendors.json` },
  'POST /widget/:account_id/consents': { rule: 'public', path: (t) => `/widget/${t.account.id}/consents`, body: consent },
  'POST /widget/:account_id/views': { rule: 'public', path: (t) => `/widget/${t.account.id}/views` },
  'DELETE /api/v1/accounts/:id': {
    rule: 'any',
    path: (t) => `/api/v1/accounts/${t.account.id}`, foreign: (o) => `/api/v1/accounts/${o.account.id}`,
    refused: {
      member: [403, 'Only the account owner or its partner can delete an account'],
      account: [403, 'Only the account owner or its partner can delete an account'],
    },
  },
};

const { t, tenants: [ownTenant, otherTenant] } = fileApp({
  env: { RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000', SIGNUP_ENABLED: 'true' },
  tenants: ['Own', 'Other'],
});
let own: Known;
let other: Known;
let revoked: string;

async function withTokenIds(tenant: Tenant): Promise<Known> {
  const { hashToken } = await import('../../src/lib/token-secret.ts');
  const ids = {} as Record<Who, string>;
  for (const who of EVERYONE) {
    const row = await t.services.db.selectFrom('api_tokens').select('id').where('token_hash', '=', hashToken(tenant.tokens[who])).executeTakeFirstOrThrow();
    ids[who] = row.id;
  }
  return { ...tenant, tokenIds: ids, records: await seedRecords(tenant) };
}

beforeAll(async () => {
  own = await withTokenIds(ownTenant);
  other = await withTokenIds(otherTenant);
  revoked = await revokedToken(t.app, t.services, own.admin.id);
});

/** What the route's rule says to a caller of this kind: undefined when it lets the caller through. */
function ruleRefusal(auth: string | undefined, admin: boolean, who: Who): [number, string] | undefined {
  const type = who === 'admin' || who === 'member' ? 'user' : who;
  if (auth === 'partner' && type !== 'partner') return [401, NEEDS_PARTNER];
  if (auth === 'user' && type !== 'user') return [401, NEEDS_USER];
  if (auth === 'partner-or-user' && type === 'account') return [401, 'API key must belong to a partner or a user'];
  if (auth === 'account' && type === 'partner') return [401, NEEDS_ACCOUNT];
  if (auth === 'account' && admin && who === 'member') return [403, NEEDS_ADMIN];
  return undefined;
}

const body = (status: number, message: string) => ({ errors: [{ code: status, message }] });

describe('security table', () => {
  it('has an entry for every route, and every entry is a route', () => {
    const routes = t.app.routeTable.filter((r) => !r.url.startsWith('/docs')).map((r) => `${r.method} ${r.url}`);
    expect(routes.filter((key) => !(key in TABLE))).toEqual([]);
    expect(Object.keys(TABLE).filter((key) => !routes.includes(key))).toEqual([]);
  });

  it('walks every route with every kind of caller', async () => {
    const failures: string[] = [];
    const expectThat = (label: string, got: { status: number; body: unknown }, status: number, message?: string) => {
      const ok = got.status === status && (message === undefined || JSON.stringify(got.body) === JSON.stringify(body(status, message)));
      if (!ok) failures.push(`${label}: expected ${status} ${message ?? ''}, got ${got.status} ${JSON.stringify(got.body)}`);
    };
    for (const route of t.app.routeTable.filter((r) => !r.url.startsWith('/docs'))) {
      const key = `${route.method} ${route.url}`;
      const entry = TABLE[key];
      if (!entry) continue; // reported by the completeness test above
      if (route.auth !== entry.rule || route.admin !== (entry.admin === true)) {
        failures.push(`${key}: declares ${route.auth}${route.admin ? ' (admin)' : ''}, the table says ${entry.rule}${entry.admin ? ' (admin)' : ''}`);
      }
      const path = entry.path?.(own) ?? route.url;
      const send = (token: string | undefined, url = path, headers?: Record<string, string>) =>
        call(t.app, route.method, url, { token, body: entry.body, headers });

      if (entry.rule === 'none' || entry.rule === 'public') {
        const res = await send(undefined);
        if (JSON.stringify(res.body).includes(INVALID_TOKEN)) failures.push(`${key}: public route asked for a token`);
        continue;
      }
      expectThat(`${key} without a token`, await send(undefined), 401, INVALID_TOKEN);
      expectThat(`${key} with a malformed token`, await send(undefined, path, { authorization: 'Bearer csu_short' }), 401, INVALID_TOKEN);
      expectThat(`${key} with a Basic header`, await send(undefined, path, { authorization: 'Basic dXNlcjpwYXNz' }), 401, INVALID_TOKEN);
      expectThat(`${key} with an unknown token`, await send(`csp_${'A'.repeat(43)}`), 401, INVALID_TOKEN);
      expectThat(`${key} with a revoked token`, await send(revoked), 401, EXPIRED_TOKEN);

      for (const who of EVERYONE) {
        const refusal = ruleRefusal(entry.rule, entry.admin === true, who) ?? entry.refused?.[who];
        if (refusal) {
          expectThat(`${key} as ${who}`, await send(own.tokens[who]), refusal[0], refusal[1]);
        } else if (entry.foreign) {
          expectThat(`${key} as ${who} on another tenant's record`, await send(own.tokens[who], entry.foreign(other)), 404, 'Record not found');
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("answers 404 for a webhook's delivery named under another tenant's webhook, and the other way round", async () => {
    for (const [hook, delivery] of [[own.records.webhook, other.records.delivery], [other.records.webhook, own.records.delivery]]) {
      const res = await call(t.app, 'POST', `/api/v1/webhooks/${hook}/deliveries/${delivery}/retry`, { token: own.tokens.admin });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(body(404, 'Record not found'));
    }
    const untouched = await t.services.db.selectFrom('webhook_deliveries').select('status').where('id', 'in', [own.records.delivery, other.records.delivery]).execute();
    expect(untouched.map((row) => row.status)).toEqual(['parked', 'parked']);
  });
});
