/**
 * The world the fuzzer and the tenant-leak check run in: one app, two tenants (A calls, B is the
 * foreign one), each with records of every kind whose names carry the tenant's marker, and spare
 * records that destructive requests may use up without starving the rest of the run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../../src/db/ids.ts';
import { insertMembership } from '../../src/modules/account-users/account-users.repository.ts';
import { issueToken } from '../../src/modules/tokens/tokens.service.ts';
import { call, startApp, type TestApp } from '../helpers/app.ts';
import { createTenant, createUser, revokedToken, type Tenant } from '../helpers/tenants.ts';

export type Who = 'partner' | 'admin' | 'member' | 'account';
export const EVERYONE: Who[] = ['partner', 'admin', 'member', 'account'];

/** Path segments of the API, each naming the records its `:id` refers to. */
export type Resource =
  | 'api-tokens' | 'groups' | 'accounts' | 'account-users' | 'account-invitations'
  | 'categories' | 'services' | 'storage-items' | 'consents' | 'ai-actions' | 'scans'
  | 'notices' | 'webhooks' | 'deliveries';

export interface Side {
  tenant: Tenant;
  /** In every name, email and domain of this tenant's records: finding it elsewhere is a leak. */
  marker: string;
  /** The main records (read by everyone) and the spare ones (for writes and deletes). */
  main: Record<Resource, string[]>;
  spare: Record<Resource, string[]>;
  /** Every id of this tenant (records, users, partner, tokens). */
  allIds: string[];
  /** Values a list filter can name: consent session and user ids. */
  sessionId: string;
  consentUserId: string;
}

export interface World {
  t: TestApp;
  a: Side;
  b: Side;
  /** A third tenant with no records: its tokens are valid, but reach nothing of A or B. */
  outsider: Tenant;
  /** Tokens that must be refused: revoked, expired. */
  revoked: string;
  expired: string;
  /** A token of `who` of A (or of the outsider), issued now: for requests that revoke the token they are sent with. */
  freshToken(who: Who, tenant?: Tenant): Promise<string>;
  close(): Promise<void>;
}

/** Every limit raised: the fuzzer sends tens of thousands of requests from one IP and a few tokens. */
export const UNLIMITED = {
  RATE_LIMIT_MAX: '1000000000',
  AUTH_RATE_LIMIT_PER_MIN: '1000000000',
  LOGIN_FAILURES_PER_IP_PER_HOUR: '1000000000',
  LOGIN_EMAIL_RATE_LIMIT_PER_HOUR: '1000000000',
  WIDGET_RATE_LIMIT_PER_MIN: '1000000000',
};

function expectStatus(res: { status: number; body: unknown }, status: number[], what: string) {
  if (!status.includes(res.status)) throw new Error(`seeding ${what}: ${res.status} ${JSON.stringify(res.body)}`);
}

async function seedSide(t: TestApp, label: string): Promise<Side> {
  const { app, services } = t;
  const { db } = services;
  const marker = `${label}${randomBytes(5).toString('hex')}`;
  const tenant = await createTenant(services, `${marker} tenant`);
  const { tokens } = tenant;
  const named = (what: string) => `${marker} ${what}`;
  const account = { token: tokens.account };

  const post = async (url: string, token: string, body: unknown, pick: (b: any) => string) => {
    const res = await call(app, 'POST', url, { token, body });
    expectStatus(res, [200, 201], `${url} ${JSON.stringify(body)}`);
    return pick(res.body);
  };

  const categories: string[] = [];
  for (const name of ['analytics', 'marketing', 'spare']) {
    categories.push(await post('/api/v1/categories', account.token, { category: { name: named(name), description: named('purpose') } }, (b) => b.data.id));
  }
  const vendorServices: string[] = [];
  for (const name of ['analytics', 'video', 'spare']) {
    vendorServices.push(await post('/api/v1/services', account.token, {
      service: { name: named(name), company_name: named('vendor'), category_id: categories[0] },
    }, (b) => b.data.id));
  }
  const storageItems: string[] = [];
  for (const [name, status] of [['cookie', 'finalised'], ['pixel', 'draft'], ['spare', 'draft']] as const) {
    storageItems.push(await post('/api/v1/storage-items', account.token, {
      storage_item: { name: `${marker}_${name}`, company_name: named('vendor'), category_id: categories[0], status },
    }, (b) => b.data.id));
  }
  const sessionId = `${marker}-session`;
  const consentUserId = `${marker}-visitor`;
  const consents: string[] = [];
  for (let i = 0; i < 2; i++) {
    consents.push(await post('/api/v1/consents', account.token, {
      consent: {
        session_id: sessionId, user_id: consentUserId, url: `https://${marker}.example.com/page`,
        user_preferences: { accept_type: 'custom', accepted_categories: [categories[0]], rejected_categories: [categories[1]] },
      },
    }, (b) => b.data.id));
  }
  // An erasure in the log, of a consent given for that purpose (the others keep their fields).
  const erased = await post('/api/v1/consents', account.token, { consent: { session_id: `${marker}-erased`, user_preferences: { accept_type: 'all' } } }, (b) => b.data.id);
  const erasure = await post('/api/v1/consents/erase', account.token, { session_id: `${marker}-erased` }, (b) => b.data.id);
  const invitations: string[] = [];
  for (const name of ['invitee', 'spare invitee']) {
    invitations.push(await post('/api/v1/account-invitations', account.token, {
      name: named(name), email: `${marker}-${name.replace(' ', '-')}@example.test`, role: 'member',
    }, (b) => b.id));
  }
  const spareMember = await createUser(services, named('spare member'));
  const spareMembership = await insertMembership(db, tenant.account.id, spareMember.user.id, false);
  const memberships = await db.selectFrom('account_users').select('id').where('account_id', '=', tenant.account.id).execute();
  const spareGroup = await post('/api/v1/groups', tokens.partner, { group: { name: named('spare group'), external_id: `${marker}-ext` } }, (b) => b.id);
  const spareAccount = await post('/api/v1/accounts', tokens.partner, {
    account: { name: named('spare site'), domain: `${marker}-spare.example.com`, group_id: tenant.group.id },
  }, (b) => b.id);
  const aiActions: string[] = [];
  for (const source of ['catalogue', 'spare']) {
    const id = newId();
    await db.insertInto('ai_actions').values({
      id, account_id: tenant.account.id, action_type: 'auto_categorise', actionable_type: 'StorageItem',
      actionable_id: storageItems[1], suggested_params: JSON.stringify({ category_id: categories[1] }),
      previous_params: JSON.stringify({ category_id: categories[0] }), confidence: 0.9, source: named(source), status: 'applied',
    }).execute();
    aiActions.push(id);
  }
  // Finished scans (the runner takes only queued ones, so no browser starts), named by the marker.
  const scans: string[] = [];
  for (const page of ['home', 'spare']) {
    const id = newId();
    await db.insertInto('scans').values({
      id, account_id: tenant.account.id, owner_id: tenant.partner.id, status: 'completed', starting_url: `https://${tenant.account.domain}/${marker}-${page}`, max_pages: 5,
      pages_scanned: 1, storage_items_found: 1, finished_at: new Date(),
      report: JSON.stringify({
        pages: [{ url: `https://${tenant.account.domain}/${marker}-${page}`, status: 200, time_ms: 10, pass: 'before_consent', error: null }],
        storage_items: [{
          name: `${marker}_cookie`, domain: tenant.account.domain, storage_type: 'cookie', storage_item_id: storageItems[0],
          first_seen_url: `https://${tenant.account.domain}/`, expires_at: null, duration: 'session', path: '/', secure: false,
          http_only: false, same_site: 'Lax', partitioned: false, set_before_consent: true, set_by: null,
        }],
        refused: [],
        consent_banner: false,
      }),
    }).execute();
    scans.push(id);
  }
  // Notice snapshots, webhooks (disabled: nothing is sent) and their deliveries, named by the marker.
  const notices: string[] = [];
  const webhooks: string[] = [];
  const deliveries: string[] = [];
  for (const page of ['home', 'spare']) {
    const content = JSON.stringify({ marker: `${marker}-${page}` });
    const hash = createHash('sha256').update(content).digest('hex');
    await db.insertInto('notice_snapshots').values({ account_id: tenant.account.id, hash, content }).execute();
    notices.push(hash);
    const webhook = newId();
    await db.insertInto('webhook_endpoints').values({
      id: webhook, account_id: tenant.account.id, url: `https://${marker}-${page}.example.com/hook`, events: ['scan.completed'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', enabled: false,
    }).execute();
    webhooks.push(webhook);
    const delivery = newId();
    await db.insertInto('webhook_deliveries').values({
      id: delivery, account_id: tenant.account.id, endpoint_id: webhooks[0], event: 'scan.completed',
      payload: JSON.stringify({ marker: `${marker}-${page}` }), status: 'parked', next_attempt_at: new Date(),
    }).execute();
    deliveries.push(delivery);
  }
  const spareTokens: string[] = [];
  for (const owner of [{ type: 'partner' as const, partnerId: tenant.partner.id }, { type: 'user' as const, userId: tenant.admin.id }]) {
    const { row } = await issueToken(db, { ...owner, kind: 'api', name: named('spare token') });
    spareTokens.push(row.id);
  }
  const tokenIds = (await db.selectFrom('api_tokens').select('id')
    .where((eb) => eb.or([eb('partner_id', '=', tenant.partner.id), eb('user_id', 'in', [tenant.admin.id, tenant.member.id])]))
    .execute()).map((row) => row.id);

  const main: Record<Resource, string[]> = {
    'api-tokens': tokenIds.filter((id) => !spareTokens.includes(id)),
    groups: [tenant.group.id],
    accounts: [tenant.account.id],
    'account-users': memberships.map((m) => m.id).filter((id) => id !== spareMembership.id),
    'account-invitations': [invitations[0]],
    categories: categories.slice(0, 2),
    services: vendorServices.slice(0, 2),
    'storage-items': storageItems.slice(0, 2),
    consents,
    'ai-actions': [aiActions[0]],
    scans: [scans[0]],
    notices: [notices[0]],
    webhooks: [webhooks[0]],
    deliveries: [deliveries[0]],
  };
  const spare: Record<Resource, string[]> = {
    'api-tokens': spareTokens,
    groups: [spareGroup],
    accounts: [spareAccount],
    'account-users': [spareMembership.id],
    'account-invitations': [invitations[1]],
    categories: [categories[2]],
    services: [vendorServices[2]],
    'storage-items': [storageItems[2]],
    consents,
    'ai-actions': [aiActions[1]],
    scans: [scans[1]],
    notices: [notices[1]],
    webhooks: [webhooks[1]],
    deliveries: [deliveries[1]],
  };
  const allIds = [
    ...new Set([
      ...Object.values(main).flat(), ...Object.values(spare).flat(), erased, erasure,
      tenant.partner.id, tenant.admin.id, tenant.member.id, spareMember.user.id,
    ]),
  ];
  return { tenant, marker, main, spare, allIds, sessionId, consentUserId };
}

/** A fresh app with both tenants seeded; `env` adds to the raised limits. */
export async function buildWorld(env: Record<string, string> = {}): Promise<World> {
  // Sign-up on, so that the fuzzer reaches POST /users beyond its 403.
  const t = await startApp({ env: { ...UNLIMITED, SIGNUP_ENABLED: 'true', ...env } });
  const a = await seedSide(t, 'fuzza');
  const b = await seedSide(t, 'fuzzb');
  const outsider = await createTenant(t.services, 'Outsider');
  const { db } = t.services;
  const revoked = await revokedToken(t.app, t.services, a.tenant.admin.id);
  const expired = (await issueToken(db, { type: 'user', kind: 'api', userId: a.tenant.admin.id, expiresAt: new Date(Date.now() - 1000) })).token;
  return {
    t, a, b, outsider, revoked, expired,
    async freshToken(who, tenant = a.tenant) {
      if (who === 'partner') return (await issueToken(db, { type: 'partner', kind: 'api', partnerId: tenant.partner.id })).token;
      if (who === 'account') {
        return (await issueToken(db, { type: 'account', kind: 'api', userId: tenant.admin.id, accountId: tenant.account.id })).token;
      }
      return (await issueToken(db, { type: 'user', kind: 'api', userId: who === 'admin' ? tenant.admin.id : tenant.member.id })).token;
    },
    close: () => t.close(),
  };
}

/** The resource a path's `:id` names: the segment before it (`/api/v1/categories/:id` → categories). */
export function resourceOf(path: string, param: string): Resource | undefined {
  if (param === 'account_id') return 'accounts';
  const segments = path.split('/');
  const at = segments.findIndex((segment) => segment === `{${param}}` || segment === `:${param}`);
  return at > 0 ? (segments[at - 1] as Resource) : undefined;
}

/**
 * What requests of the other tenant must never change: its groups, accounts (as set through the
 * API), members, invitations, categories, services, storage items, AI actions and tokens. Consents and visit
 * facts are left out: the public widget writes them for any account by design.
 */
export async function snapshotOf(world: World, side: Side): Promise<string> {
  const { db } = world.t.services;
  const { tenant } = side;
  const accountIds = (await db.selectFrom('accounts').select('id')
    .where((eb) => eb.or([eb('id', '=', tenant.account.id), eb('group_id', 'in', side.main.groups.concat(side.spare.groups))]))
    .execute()).map((row) => row.id);
  const inAccounts = async (table: 'account_users' | 'account_invitations' | 'categories' | 'services' | 'storage_items' | 'ai_actions' | 'scans') =>
    db.selectFrom(table).selectAll().where('account_id', 'in', accountIds).orderBy('id').execute();
  return JSON.stringify({
    groups: await db.selectFrom('groups').selectAll().where('partner_id', '=', tenant.partner.id).orderBy('id').execute(),
    accounts: await db.selectFrom('accounts').select(['id', 'name', 'domain', 'allowed_domains', 'group_id', 'owner_id', 'default_language', 'updated_at'])
      .where('id', 'in', accountIds).orderBy('id').execute(),
    accountUsers: await inAccounts('account_users'),
    invitations: await inAccounts('account_invitations'),
    categories: await inAccounts('categories'),
    services: await inAccounts('services'),
    storageItems: await inAccounts('storage_items'),
    aiActions: await inAccounts('ai_actions'),
    scans: await inAccounts('scans'),
    tokens: await db.selectFrom('api_tokens').select(['id', 'revoked_at', 'expires_at', 'name', 'account_id'])
      .where((eb) => eb.or([eb('partner_id', '=', tenant.partner.id), eb('user_id', 'in', [tenant.admin.id, tenant.member.id])]))
      .orderBy('id').execute(),
  });
}
