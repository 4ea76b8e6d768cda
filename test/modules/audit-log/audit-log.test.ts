/**
 * The audit log over every write route of the app: each configuration write appears exactly once
 * with the right actor, no secret appears in it, and a write route that is neither in the table nor
 * excluded with a reason fails the test.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import type { Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [shop] } = fileApp({ tenants: ['Audited'] as const, env: { RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });

type Caller = 'admin' | 'account' | 'partner';
interface Write {
  caller: Caller;
  /** Makes what the write needs; answers its path and body. */
  prepare: (tenant: Tenant) => Promise<{ path: string; body?: unknown }>;
  resource: string;
  action: string;
}

const ACTOR: Record<Caller, string> = { admin: 'user', account: 'token', partner: 'partner' };

async function created(tenant: Tenant, path: string, body: unknown): Promise<string> {
  const res = await call(t.app, 'POST', path, { token: tenant.tokens.account, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body.data ?? res.body).id;
}
const category = (tenant: Tenant) => created(tenant, '/api/v1/categories', { category: { name: `C ${newId()}` } });
const item = async (tenant: Tenant, categoryId: string | null = null) =>
  created(tenant, '/api/v1/storage-items', { storage_item: { name: `i_${newId().slice(-8)}`, category_id: categoryId } });
async function aiAction(tenant: Tenant, status: 'applied' | 'suggested', suggested: Record<string, unknown>): Promise<string> {
  // Stored directly: an item made through the API may be the AI's to work on (auto_categorise on).
  const itemId = newId();
  await t.services.db.insertInto('storage_items').values({ id: itemId, account_id: tenant.account.id, name: `a_${itemId.slice(-8)}` }).execute();
  const id = newId();
  await t.services.db.insertInto('ai_actions').values({
    id, account_id: tenant.account.id, action_type: 'auto_categorise', actionable_type: 'StorageItem', actionable_id: itemId,
    suggested_params: JSON.stringify(suggested), previous_params: JSON.stringify({ description: '' }), confidence: 0.9, source: 'test', status,
  }).execute();
  return id;
}
async function invitation(tenant: Tenant): Promise<{ id: string; url: string }> {
  const res = await call(t.app, 'POST', '/api/v1/account-invitations', { token: tenant.tokens.account, body: { name: 'I', email: `${newId()}@example.test`, role: 'member' } });
  expect(res.status).toBe(201);
  return { id: res.body.id, url: res.body.invite_url };
}
const memberRow = async (tenant: Tenant) => (await t.services.db.selectFrom('account_users').select('id')
  .where('account_id', '=', tenant.account.id).where('user_id', '=', tenant.member.id).executeTakeFirstOrThrow()).id;
/** Nothing listens there: no event these writes make is one the endpoint asked for. */
const WEBHOOK_URL = 'http://127.0.0.1:9/hook';
const webhook = (tenant: Tenant) => created(tenant, '/api/v1/webhooks', { webhook: { url: WEBHOOK_URL, events: ['scan.completed'] } });
const service = (tenant: Tenant) => created(tenant, '/api/v1/services', { service: { name: `S ${newId()}` } });

/** Every configuration write, keyed `METHOD /url` as the router knows it. */
const WRITES: Record<string, Write> = {
  'POST /api/v1/accounts': { caller: 'partner', resource: 'account', action: 'create', prepare: async (s) => ({ path: '/api/v1/accounts', body: { account: { name: 'New', domain: 'new.example.com', group_id: s.group.id } } }) },
  'PUT /api/v1/accounts/:id': { caller: 'admin', resource: 'account', action: 'update', prepare: async (s) => ({ path: `/api/v1/accounts/${s.account.id}`, body: { account: { name: 'Renamed' } } }) },
  'PATCH /api/v1/accounts/:id': { caller: 'partner', resource: 'account', action: 'update', prepare: async (s) => ({ path: `/api/v1/accounts/${s.account.id}`, body: { account: { name: 'Patched' } } }) },
  'POST /api/v1/categories': { caller: 'admin', resource: 'category', action: 'create', prepare: async () => ({ path: '/api/v1/categories', body: { category: { name: 'Made' } } }) },
  'PUT /api/v1/categories/:id': { caller: 'account', resource: 'category', action: 'update', prepare: async (s) => ({ path: `/api/v1/categories/${await category(s)}`, body: { category: { description: 'x' } } }) },
  'DELETE /api/v1/categories/:id': { caller: 'account', resource: 'category', action: 'delete', prepare: async (s) => ({ path: `/api/v1/categories/${await category(s)}` }) },
  'POST /api/v1/services': { caller: 'admin', resource: 'service', action: 'create', prepare: async () => ({ path: '/api/v1/services', body: { service: { name: 'Svc' } } }) },
  'PUT /api/v1/services/:id': { caller: 'account', resource: 'service', action: 'update', prepare: async (s) => ({ path: `/api/v1/services/${await service(s)}`, body: { service: { description: 'x' } } }) },
  'DELETE /api/v1/services/:id': { caller: 'account', resource: 'service', action: 'delete', prepare: async (s) => ({ path: `/api/v1/services/${await service(s)}` }) },
  'POST /api/v1/storage-items': { caller: 'admin', resource: 'storage_item', action: 'create', prepare: async () => ({ path: '/api/v1/storage-items', body: { storage_item: { name: 'made' } } }) },
  'PUT /api/v1/storage-items/:id': { caller: 'account', resource: 'storage_item', action: 'update', prepare: async (s) => ({ path: `/api/v1/storage-items/${await item(s)}`, body: { storage_item: { description: 'x' } } }) },
  'DELETE /api/v1/storage-items/:id': { caller: 'account', resource: 'storage_item', action: 'delete', prepare: async (s) => ({ path: `/api/v1/storage-items/${await item(s)}` }) },
  'POST /api/v1/storage-items/approve': { caller: 'admin', resource: 'storage_item', action: 'approve', prepare: async (s) => ({ path: '/api/v1/storage-items/approve', body: { ids: [await item(s, await category(s))] } }) },
  'POST /api/v1/storage-items/classify': {
    caller: 'admin', resource: 'storage_item', action: 'classify',
    prepare: async (s) => {
      await call(t.app, 'PATCH', `/api/v1/accounts/${s.account.id}`, { token: s.tokens.admin, body: { account: { ai_features: { auto_categorise: true } } } });
      const id = newId();
      await t.services.db.insertInto('storage_items').values({ id, account_id: s.account.id, name: `c_${id.slice(-8)}` }).execute();
      return { path: '/api/v1/storage-items/classify', body: { ids: [id] } };
    },
  },
  'PATCH /api/v1/banner': { caller: 'admin', resource: 'banner', action: 'update', prepare: async () => ({ path: '/api/v1/banner', body: { banner: { layout: 'bar' } } }) },
  'POST /api/v1/banner/reconsent': { caller: 'account', resource: 'banner', action: 'reconsent', prepare: async () => ({ path: '/api/v1/banner/reconsent' }) },
  'PUT /api/v1/account-users/:id': { caller: 'admin', resource: 'account_user', action: 'update', prepare: async (s) => ({ path: `/api/v1/account-users/${await memberRow(s)}`, body: { account_user: { roles: { admin: true } } } }) },
  'DELETE /api/v1/account-users/:id': { caller: 'account', resource: 'account_user', action: 'delete', prepare: async (s) => ({ path: `/api/v1/account-users/${await memberRow(s)}` }) },
  'POST /api/v1/account-invitations': { caller: 'admin', resource: 'account_invitation', action: 'create', prepare: async () => ({ path: '/api/v1/account-invitations', body: { name: 'N', email: 'new@example.test', role: 'member' } }) },
  'PUT /api/v1/account-invitations/:id': { caller: 'account', resource: 'account_invitation', action: 'update', prepare: async (s) => ({ path: `/api/v1/account-invitations/${(await invitation(s)).id}`, body: { account_invitation: { name: 'Renamed' } } }) },
  'DELETE /api/v1/account-invitations/:id': { caller: 'account', resource: 'account_invitation', action: 'delete', prepare: async (s) => ({ path: `/api/v1/account-invitations/${(await invitation(s)).id}` }) },
  'POST /api/v1/account-invitations/:id/resend': { caller: 'account', resource: 'account_invitation', action: 'resend', prepare: async (s) => ({ path: `/api/v1/account-invitations/${(await invitation(s)).id}/resend` }) },
  'POST /api/v1/api-tokens': { caller: 'partner', resource: 'api_token', action: 'create', prepare: async (s) => ({ path: '/api/v1/api-tokens', body: { name: 'T', account_id: s.account.id } }) },
  'DELETE /api/v1/api-tokens/:id': {
    caller: 'partner', resource: 'api_token', action: 'delete',
    prepare: async (s) => {
      const res = await call(t.app, 'POST', '/api/v1/api-tokens', { token: s.tokens.partner, body: { name: 'Gone', account_id: s.account.id } });
      return { path: `/api/v1/api-tokens/${res.body.data.id}` };
    },
  },
  'POST /api/v1/ai-actions/:id/revert': { caller: 'admin', resource: 'ai_action', action: 'revert', prepare: async (s) => ({ path: `/api/v1/ai-actions/${await aiAction(s, 'applied', { description: 'AI' })}/revert` }) },
  'POST /api/v1/ai-actions/:id/reject': { caller: 'account', resource: 'ai_action', action: 'reject', prepare: async (s) => ({ path: `/api/v1/ai-actions/${await aiAction(s, 'suggested', { category: 'analytics' })}/reject` }) },
  'POST /api/v1/ai-actions/:id/accept': { caller: 'admin', resource: 'ai_action', action: 'accept', prepare: async (s) => ({ path: `/api/v1/ai-actions/${await aiAction(s, 'suggested', { category: 'analytics' })}/accept` }) },
  'POST /api/v1/webhooks': { caller: 'admin', resource: 'webhook', action: 'create', prepare: async () => ({ path: '/api/v1/webhooks', body: { webhook: { url: WEBHOOK_URL, events: ['scan.completed'] } } }) },
  'PATCH /api/v1/webhooks/:id': { caller: 'admin', resource: 'webhook', action: 'update', prepare: async (s) => ({ path: `/api/v1/webhooks/${await webhook(s)}`, body: { webhook: { description: 'Changed' } } }) },
  'DELETE /api/v1/webhooks/:id': { caller: 'admin', resource: 'webhook', action: 'delete', prepare: async (s) => ({ path: `/api/v1/webhooks/${await webhook(s)}` }) },
  'POST /api/v1/webhooks/:id/rotate-secret': { caller: 'admin', resource: 'webhook', action: 'rotate_secret', prepare: async (s) => ({ path: `/api/v1/webhooks/${await webhook(s)}/rotate-secret` }) },
};

/** Write routes that change no account's configuration, or are tested elsewhere, each with the reason. */
const EXCLUDED: Record<string, string> = {
  'POST /api/v1/webhooks/:id/deliveries/:delivery_id/retry': 'a delivery sent again changes no configuration',
  'POST /api/v1/auth': 'a session of a user, no account configuration',
  'DELETE /api/v1/auth': 'ends a session',
  'PUT /api/v1/password': "a user's own password",
  'POST /api/v1/password/reset': "a user's own password",
  'PUT /api/v1/password/reset': "a user's own password",
  'POST /api/v1/users': 'sign-up: a user, no account yet',
  'POST /api/v1/groups': "a partner's groups, above any account",
  'PUT /api/v1/groups/:id': "a partner's groups, above any account",
  'DELETE /api/v1/groups/:id': "a partner's groups, above any account",
  'DELETE /api/v1/accounts/:id': 'the account and its audit log are deleted together',
  'POST /api/v1/consents': 'a consent, in the hash chain (proof-of-consent.md)',
  'POST /api/v1/consents/erase': 'kept in its own erasure log (GET /consents/erasures)',
  'POST /api/v1/banner/preview': 'saves nothing',
  'POST /api/v1/account-invitations/accept': 'recorded as the invitee (a user): the last test below',
  'POST /api/v1/scans': 'recorded as a scan start in the transaction that queues it; not walked here: it needs a site that resolves and a browser',
  'DELETE /api/v1/scans/:id': 'recorded as a scan cancel; not walked here: a queued scan would start a browser',
  'POST /api/v1/scans/:id/remove-unseen-items': "recorded as each removed storage item's delete; not walked here: it needs a completed scan's report",
  'POST /widget/:account_id/consents': 'a consent',
  'POST /widget/:account_id/views': 'a pageview',
};

describe('the audit log', () => {
  it('lists every write route in the table or among the exclusions', () => {
    const writes = t.app.routeTable.filter((r) => r.method !== 'GET' && /^\/(api|widget)\//.test(r.url)).map((r) => `${r.method} ${r.url}`);
    expect(writes.filter((key) => !(key in WRITES) && !(key in EXCLUDED))).toEqual([]);
    expect(Object.keys(WRITES).filter((key) => key in EXCLUDED)).toEqual([]);
  });

  it('records each configuration write exactly once, with its actor, and no secret', async () => {
    const failures: string[] = [];
    const secrets: string[] = Object.values(shop.tokens);
    for (const [key, write] of Object.entries(WRITES)) {
      const method = key.split(' ')[0];
      const { path, body } = await write.prepare(shop);
      const since = new Date();
      const res = await call(t.app, method, path, { token: shop.tokens[write.caller], body });
      if (res.status >= 300) {
        failures.push(`${key}: ${res.status} ${JSON.stringify(res.body)}`);
        continue;
      }
      if (typeof res.body?.token === 'string') secrets.push(res.body.token);
      if (typeof res.body?.secret === 'string') secrets.push(res.body.secret);
      if (typeof res.body?.invite_url === 'string') secrets.push(res.body.invite_url.split('/').at(-1));
      const accountId = write.resource === 'account' && method === 'POST' ? res.body.id : shop.account.id;
      const log = await t.services.db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId)
        .where('created_at', '>=', since).where('resource_type', '=', write.resource).where('action', '=', write.action).execute();
      const mine = log.filter((entry) => entry.actor_type !== 'ai');
      if (mine.length !== 1) failures.push(`${key}: ${mine.length} entries of ${write.resource} ${write.action}`);
      else if (mine[0].actor_type !== ACTOR[write.caller]) failures.push(`${key}: actor ${mine[0].actor_type}, expected ${ACTOR[write.caller]}`);
    }
    expect(failures).toEqual([]);
    const all = JSON.stringify(await t.services.db.selectFrom('audit_log').selectAll().execute());
    for (const secret of secrets) expect(all).not.toContain(secret);
    expect(all).not.toMatch(/token_hash|secret_hash|password_hash|personal_salt|invite_url/);
  });

  it('names the invitee on an accepted invitation, and serves the log by filters', async () => {
    const { url } = await invitation(shop);
    const accepted = await call(t.app, 'POST', '/api/v1/account-invitations/accept', { body: { invitation: { token: url.split('/').at(-1), name: 'Invitee', password: 'long enough' } } });
    expect(accepted.status).toBe(200);
    const list = await call(t.app, 'GET', '/api/v1/audit-log', { token: shop.tokens.account, query: { resource_type: 'account_invitation', actor_type: 'user', limit: '100' } });
    expect(list.status).toBe(200);
    expect(list.body.data.filter((e: { action: string; actor_id: string }) => e.action === 'accept' && e.actor_id === accepted.body.data.user.id)).toHaveLength(1);
    const partner = await call(t.app, 'GET', '/api/v1/audit-log', { token: shop.tokens.account, query: { actor_type: 'partner' } });
    expect(partner.body.data.length).toBeGreaterThan(0);
    expect(partner.body.data.every((e: { actor_type: string }) => e.actor_type === 'partner')).toBe(true);
    const future = await call(t.app, 'GET', '/api/v1/audit-log', { token: shop.tokens.account, query: { since: '2999-01-01T00:00:00Z' } });
    expect(future.body).toMatchObject({ data: [], pagination: { count: 0 } });
  });
});
