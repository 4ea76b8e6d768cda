import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AI_FEATURES } from '../../../src/modules/accounts/accounts.schema.ts';
import type { AccountRow } from '../../../src/db/schema.ts';
import { insertAccount } from '../../../src/modules/accounts/accounts.repository.ts';
import { insertMembership } from '../../../src/modules/account-users/account-users.repository.ts';
import { insertGroup } from '../../../src/modules/groups/groups.repository.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant, createUser, type Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [a, b] } = fileApp({ tenants: ['Alpha', 'Beta'] });
/** A user who belongs to no account. */
let stranger: { id: string; token: string };
beforeAll(async () => {
  const { user, token } = await createUser(t.services, 'Stranger');
  stranger = { id: user.id, token };
});

const api = (method: string, url: string, token?: string, body?: unknown) => call(t.app, method, url, { token, body });
const errors = (code: number, message: string) => ({ errors: [{ code, message }] });
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_FOUND = errors(404, 'Record not found');
const NEEDS_ADMIN = errors(403, 'User must be an admin of this account');
const OWNER_ONLY = errors(403, 'Only the account owner or its partner can delete an account');

/** What an account made through the API starts with. */
const NEW_ACCOUNT_AI = { ...DEFAULT_AI_FEATURES, autofill: true, auto_categorise: true };

/** The contract's account, written out from a stored row. */
const accountJson = (row: AccountRow, onboarding_status = 'account_created') => ({
  id: row.id,
  name: row.name,
  domain: row.domain,
  allowed_domains: row.allowed_domains,
  group_id: row.group_id,
  owner_id: row.owner_id,
  default_language: row.default_language,
  onboarding_status,
  ai_features: DEFAULT_AI_FEATURES,
  revision: row.revision,
  https_only: row.https_only,
  scan_schedule: 'off',
  next_scan_at: null,
  consent_retention_days: row.consent_retention_days,
  demo: row.demo,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

const stored = (id: string) => t.services.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
const membership = (accountId: string, userId: string) =>
  t.services.db.selectFrom('account_users').select(['admin']).where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirst();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((account) => account.id);

/** An account straight in the database, in a group (or none) and owned by a user (or none). */
async function seedAccount(fields: { group_id: string | null; owner_id?: string | null; name?: string }) {
  return insertAccount(t.services.db, {
    name: fields.name ?? 'Seeded',
    domain: 'seeded.example.com',
    allowed_domains: [],
    group_id: fields.group_id,
    owner_id: fields.owner_id ?? null,
    default_language: 'en',
  });
}

/** A tenant of its own, for tests that count or change its accounts. */
const freshTenant = (label: string) => createTenant(t.services, label);

describe('GET /accounts: what each token reaches', () => {
  const list = (token: string, query = '') => api('GET', `/api/v1/accounts${query}`, token);

  it("shows a partner the accounts of its groups, in the pagination envelope", async () => {
    const res = await list(b.tokens.partner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pagination: { prev_url: '/api/v1/accounts?page=', next_url: '/api/v1/accounts?page=', count: 1, page: 1, prev: null, next: null },
      data: [accountJson(b.account)],
    });
  });

  it('shows each token exactly what it reaches', async () => {
    const tenant = await freshTenant('Reach');
    const secondGroup = await insertGroup(t.services.db, tenant.partner.id, { name: 'Second group' });
    const inSecondGroup = await seedAccount({ group_id: secondGroup.id });
    const memberElsewhere = await seedAccount({ group_id: b.group.id });
    await insertMembership(t.services.db, memberElsewhere.id, tenant.member.id, false);
    const ungrouped = await seedAccount({ group_id: null, owner_id: tenant.admin.id });
    await insertMembership(t.services.db, ungrouped.id, tenant.admin.id, true);

    const cases: [string, string, string[]][] = [
      ['partner', tenant.tokens.partner, [tenant.account.id, inSecondGroup.id]],
      ['admin', tenant.tokens.admin, [tenant.account.id, ungrouped.id]],
      ['member', tenant.tokens.member, [tenant.account.id, memberElsewhere.id]],
      ['account', tenant.tokens.account, [tenant.account.id]],
      ['stranger', stranger.token, []],
    ];
    for (const [who, token, expected] of cases) {
      const res = await list(token);
      expect([who, res.status, ids(res), res.body.pagination.count]).toEqual([who, 200, expected, expected.length]);
    }
  });

  it('refuses a request without a token', async () => {
    const res = await list('');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errors(401, 'Invalid API Key'));
  });
});

describe('GET /accounts: filters', () => {
  let tenant: Tenant;
  let secondGroup: { id: string };
  let inSecondGroup: AccountRow;
  beforeAll(async () => {
    tenant = await freshTenant('Filters');
    secondGroup = await insertGroup(t.services.db, tenant.partner.id, { name: 'Second group' });
    inSecondGroup = await seedAccount({ group_id: secondGroup.id, name: 'In second group' });
    await t.services.db.updateTable('accounts').set({ vendors_setup_at: new Date() }).where('id', '=', inSecondGroup.id).execute();
  });

  it('filters by group_id', async () => {
    const res = await api('GET', `/api/v1/accounts?group_id=${secondGroup.id}`, tenant.tokens.partner);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([accountJson(inSecondGroup, 'vendors_setup')]);
    expect(res.body.pagination.count).toBe(1);

    const first = await api('GET', `/api/v1/accounts?group_id=${tenant.group.id}`, tenant.tokens.partner);
    expect(ids(first)).toEqual([tenant.account.id]);
  });

  it('filters by domain, as people paste it', async () => {
    const tenant = await freshTenant('Domains');
    const shop = await api('POST', '/api/v1/accounts', tenant.tokens.partner, { account: { name: 'Shop', domain: 'shop.example.org', group_id: tenant.group.id } });
    expect(shop.status).toBe(201);
    for (const domain of ['shop.example.org', 'https://Shop.Example.org/cart']) {
      const res = await api('GET', `/api/v1/accounts?domain=${encodeURIComponent(domain)}`, tenant.tokens.partner);
      expect([domain, ids(res), res.body.pagination.count]).toEqual([domain, [shop.body.id], 1]);
    }
    expect(ids(await api('GET', '/api/v1/accounts?domain=example.org', tenant.tokens.partner))).toEqual([]);
    // Another partner's account of that domain is not found.
    expect(ids(await api('GET', '/api/v1/accounts?domain=shop.example.org', b.tokens.partner))).toEqual([]);
    expect(await api('GET', '/api/v1/accounts?domain=not%20a%20domain', tenant.tokens.partner)).toMatchObject({
      status: 400, body: { errors: [{ code: 400, message: 'domain is invalid' }] },
    });
  });

  it("finds nothing in another partner's group", async () => {
    const res = await api('GET', `/api/v1/accounts?group_id=${b.group.id}`, tenant.tokens.partner);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination.count).toBe(0);
  });

  it('filters by onboarding_status', async () => {
    const created = await api('GET', '/api/v1/accounts?onboarding_status=account_created', tenant.tokens.partner);
    expect(ids(created)).toEqual([tenant.account.id]);
    const setUp = await api('GET', '/api/v1/accounts?onboarding_status=vendors_setup', tenant.tokens.partner);
    expect(setUp.body.data).toEqual([accountJson(inSecondGroup, 'vendors_setup')]);
    const live = await api('GET', '/api/v1/accounts?onboarding_status=live', tenant.tokens.partner);
    expect(live.body).toEqual({
      pagination: { prev_url: '/api/v1/accounts?page=', next_url: '/api/v1/accounts?page=', count: 0, page: 1, prev: null, next: null },
      data: [],
    });
  });

  it('combines the filters', async () => {
    const both = (groupId: string, status: string) =>
      api('GET', `/api/v1/accounts?group_id=${groupId}&onboarding_status=${status}`, tenant.tokens.partner);
    expect(ids(await both(secondGroup.id, 'vendors_setup'))).toEqual([inSecondGroup.id]);
    expect(ids(await both(secondGroup.id, 'account_created'))).toEqual([]);
    expect(ids(await both(tenant.group.id, 'account_created'))).toEqual([tenant.account.id]);
    expect(ids(await both(tenant.group.id, 'vendors_setup'))).toEqual([]);
  });

  it.each([
    ['onboarding_status=done', 'onboarding_status is not one of the allowed values'],
    ['onboarding_status=', 'onboarding_status is not one of the allowed values'],
    ['group_id=42', 'group_id must be a valid uuid'],
  ])('refuses %s with 400', async (query, message) => {
    const res = await api('GET', `/api/v1/accounts?${query}`, tenant.tokens.partner);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errors(400, message));
  });
});

describe('POST /accounts by a partner', () => {
  it('creates an account in one of its groups, normalising the domains', async () => {
    const res = await api('POST', '/api/v1/accounts', a.tokens.partner, {
      account: {
        name: '  Shop  ',
        domain: 'https://Shop.Example.com/x',
        group_id: a.group.id,
        default_language: 'de',
        allowed_domains: ['WWW.Shop.Example.com', 'https://www.shop.example.com/cart', '*.cdn.example.com'],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Shop',
      domain: 'shop.example.com',
      allowed_domains: ['www.shop.example.com', '*.cdn.example.com'],
      group_id: a.group.id,
      owner_id: null,
      default_language: 'de',
      onboarding_status: 'account_created',
      ai_features: NEW_ACCOUNT_AI,
      revision: 1,
      https_only: true,
      scan_schedule: 'off',
      next_scan_at: null,
      consent_retention_days: 730,
      demo: false,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect({ ...accountJson((await stored(res.body.id))!), ai_features: NEW_ACCOUNT_AI }).toEqual(res.body);
    const members = await t.services.db.selectFrom('account_users').select('id').where('account_id', '=', res.body.id).execute();
    expect(members).toEqual([]);

    const listed = await api('GET', `/api/v1/accounts?group_id=${a.group.id}`, a.tokens.partner);
    expect(ids(listed)).toContain(res.body.id);
  });

  it('defaults the language to en and the allowed domains to none', async () => {
    const res = await api('POST', '/api/v1/accounts', a.tokens.partner, { account: { name: 'Min', domain: 'min.example.com', group_id: a.group.id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ default_language: 'en', allowed_domains: [] });
  });

  it.each<[string, () => { group_id?: string | null }]>([
    ['no group', () => ({})],
    ['a null group', () => ({ group_id: null })],
    ["another partner's group", () => ({ group_id: b.group.id })],
    ['a group that does not exist', () => ({ group_id: randomUUID() })],
    ['a group id that is not an id', () => ({ group_id: 'group-1' })],
  ])('refuses %s with 422 and stores nothing', async (_, group) => {
    const before = await t.services.db.selectFrom('accounts').select('id').execute();
    const res = await api('POST', '/api/v1/accounts', a.tokens.partner, { account: { name: 'Lost', domain: 'lost.example.com', ...group() } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid('Group must exist'));
    expect(await t.services.db.selectFrom('accounts').select('id').execute()).toEqual(before);
  });
});

describe('POST /accounts by a user', () => {
  it('makes the user its owner and an admin member, and lists it for that user only', async () => {
    const { user, token } = await createUser(t.services, 'Founder');
    const res = await api('POST', '/api/v1/accounts', token, { account: { name: 'Own site', domain: 'own.example.com' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Own site', domain: 'own.example.com', group_id: null, owner_id: user.id, onboarding_status: 'account_created' });
    expect(await membership(res.body.id, user.id)).toEqual({ admin: true });

    const mine = await api('GET', '/api/v1/accounts', token);
    expect(mine.body.data).toEqual([res.body]);
    expect(ids(await api('GET', '/api/v1/accounts', a.tokens.partner))).not.toContain(res.body.id);
    expect((await api('GET', `/api/v1/accounts/${res.body.id}`, a.tokens.partner)).status).toBe(404);
  });

  it('stops acting on the user\'s only account without account_id the moment they create a second', async () => {
    const { token } = await createUser(t.services, 'Second founder');
    const first = await api('POST', '/api/v1/accounts', token, { account: { name: 'First', domain: 'first.example.com' } });
    // The token acts on its only account, and its memberships are now known to the server.
    expect((await api('GET', '/api/v1/categories', token)).status).toBe(200);
    expect((await api('POST', '/api/v1/accounts', token, { account: { name: 'Second', domain: 'second.example.com' } })).status).toBe(201);
    const write = await api('POST', '/api/v1/categories', token, { category: { name: 'Where did I go' } });
    expect(write).toMatchObject({ status: 401, body: errors(401, 'API key must belong to an account') });
    const named = await api('GET', `/api/v1/categories?account_id=${first.body.id}`, token);
    expect(named.body.data.map((category: { name: string }) => category.name)).not.toContain('Where did I go');
  });

  it('refuses to put the account in a group: a user has none', async () => {
    const res = await api('POST', '/api/v1/accounts', a.tokens.admin, { account: { name: 'X', domain: 'x.example.com', group_id: a.group.id } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid('Group must exist'));
  });
});

describe('POST /accounts: the AI of a new account', () => {
  it('has autofill and auto_categorise on and approval off, for a partner\'s account and a user\'s', async () => {
    const byPartner = await api('POST', '/api/v1/accounts', a.tokens.partner, { account: { name: 'P', domain: 'p.example.com', group_id: a.group.id } });
    const { token } = await createUser(t.services, 'AI owner');
    const byUser = await api('POST', '/api/v1/accounts', token, { account: { name: 'U', domain: 'u.example.com' } });
    for (const [res, reader] of [[byPartner, a.tokens.partner], [byUser, token]] as const) {
      expect(res.status).toBe(201);
      expect(res.body.ai_features).toEqual(NEW_ACCOUNT_AI);
      expect((await api('GET', `/api/v1/accounts/${res.body.id}`, reader)).body.ai_features).toEqual(NEW_ACCOUNT_AI);
    }

    // The AI works on the first item at once: a category and a description, left for a person to approve.
    const item = await api('POST', '/api/v1/storage-items', token, { storage_item: { name: '_ga' } });
    expect(item.body.data.status).toBe('processing');
    let settled = item.body.data;
    for (let i = 0; i < 500 && settled.status === 'processing'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      settled = (await api('GET', `/api/v1/storage-items/${settled.id}`, token)).body.data;
    }
    expect(settled).toMatchObject({ status: 'in_review', approved_by_type: null, category_id: expect.any(String), description: expect.stringMatching(/\w/) });
  });

  it('takes the settings the creator sends over those', async () => {
    const res = await api('POST', '/api/v1/accounts', a.tokens.partner, {
      account: { name: 'Quiet', domain: 'quiet.example.com', group_id: a.group.id, ai_features: { autofill: false, auto_approve: true } },
    });
    expect(res.status).toBe(201);
    expect(res.body.ai_features).toEqual({ ...NEW_ACCOUNT_AI, autofill: false, auto_approve: true });
    const bad = await api('POST', '/api/v1/accounts', a.tokens.partner, {
      account: { name: 'Bad', domain: 'bad.example.com', group_id: a.group.id, ai_features: { auto_approve_threshold: 2 } },
    });
    expect(bad.status).toBe(422);
  });
});

describe('POST /accounts: validation', () => {
  it('refuses an account token with 403', async () => {
    const res = await api('POST', '/api/v1/accounts', a.tokens.account, { account: { name: 'X', domain: 'x.example.com' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(errors(403, 'Account tokens cannot create accounts'));
    // Whatever the body holds: it is not read.
    const invalid = await api('POST', '/api/v1/accounts', a.tokens.account, { account: { name: '', domain: '' } });
    expect([invalid.status, invalid.body]).toEqual([403, errors(403, 'Account tokens cannot create accounts')]);
  });

  it.each([
    ['a blank name', { name: '   ', domain: 'x.example.com' }, ["Name can't be blank"]],
    ['no name', { domain: 'x.example.com' }, ["Name can't be blank"]],
    ['no domain', { name: 'X' }, ["Domain can't be blank"]],
    ['a blank domain', { name: 'X', domain: ' ' }, ["Domain can't be blank"]],
    ['garbage as domain', { name: 'X', domain: 'garbage' }, ['Domain is invalid']],
    ['a sentence as domain', { name: 'X', domain: 'my web site' }, ['Domain is invalid']],
    ['a scheme without host', { name: 'X', domain: 'https://' }, ['Domain is invalid']],
    ['an email as domain', { name: 'X', domain: 'me@example.com' }, ['Domain is invalid']],
    ['a wildcard over a top-level domain', { name: 'X', domain: 'x.example.com', allowed_domains: ['*.com'] }, ['Allowed domains is invalid']],
    ['a bad allowed domain', { name: 'X', domain: 'x.example.com', allowed_domains: ['ok.example.com', 'not ok'] }, ['Allowed domains is invalid']],
    ['a bad language', { name: 'X', domain: 'x.example.com', default_language: 'English' }, ['Default language is invalid']],
    ['a number as name', { name: 7, domain: 'x.example.com' }, ['Name is invalid']],
    ['a text as allowed domains', { name: 'X', domain: 'x.example.com', allowed_domains: 'x.example.com' }, ['Allowed domains is invalid']],
    ['several problems', { name: '', domain: 'nope', default_language: 'English' }, ["Name can't be blank", 'Default language is invalid']],
    ['a blank name and a blank domain', { name: '', domain: '' }, ["Name can't be blank", "Domain can't be blank"]],
    ['several problems found after the schema', { name: ' ', domain: 'nope' }, ["Name can't be blank", 'Domain is invalid']],
  ])('refuses %s with 422', async (_, account, messages) => {
    const res = await api('POST', '/api/v1/accounts', stranger.token, { account });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid(...messages));
    expect(await t.services.db.selectFrom('accounts').select('id').where('owner_id', '=', stranger.id).execute()).toEqual([]);
  });

  it('refuses a body without the account wrapper', async () => {
    const res = await api('POST', '/api/v1/accounts', a.tokens.partner, { name: 'X', domain: 'x.example.com', group_id: a.group.id });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid("Account can't be blank"));
  });

  it.each([
    ['http://localhost:3000', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['Example.COM.', 'example.com'],
    ['example.com:8443/path?q=1', 'example.com'],
  ])('normalises the domain %s to %s', async (domain, expected) => {
    const res = await api('POST', '/api/v1/accounts', a.tokens.partner, { account: { name: 'D', domain, group_id: a.group.id } });
    expect(res.status).toBe(201);
    expect(res.body.domain).toBe(expected);
    expect((await stored(res.body.id))!.domain).toBe(expected);
  });
});

describe('GET /accounts/{id}', () => {
  it('answers the account, unwrapped, to every token that reaches it', async () => {
    for (const who of ['partner', 'admin', 'member', 'account'] as const) {
      const res = await api('GET', `/api/v1/accounts/${a.account.id}`, a.tokens[who]);
      expect([who, res.status, res.body]).toEqual([who, 200, accountJson(a.account)]);
    }
  });

  it('answers 404 to every token that does not reach it', async () => {
    const tokens = { ...b.tokens, stranger: stranger.token };
    for (const [who, token] of Object.entries(tokens)) {
      const res = await api('GET', `/api/v1/accounts/${a.account.id}`, token);
      expect([who, res.status, res.body]).toEqual([who, 404, NOT_FOUND]);
    }
    for (const id of [randomUUID(), 'not-an-id']) {
      const res = await api('GET', `/api/v1/accounts/${id}`, a.tokens.partner);
      expect([id, res.status, res.body]).toEqual([id, 404, NOT_FOUND]);
    }
  });
});

describe('PUT and PATCH /accounts/{id}', () => {
  let tenant: Tenant;
  beforeAll(async () => { tenant = await freshTenant('Writes'); });
  const url = () => `/api/v1/accounts/${tenant.account.id}`;

  it('lets the partner, an admin and the account token change only the fields sent', async () => {
    const before = accountJson((await stored(tenant.account.id))!);
    const changes: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
      ['partner', 'PUT', { name: ' Renamed ' }, { name: 'Renamed' }],
      ['admin', 'PATCH', { domain: 'HTTPS://New.Example.com/' }, { domain: 'new.example.com' }],
      ['account', 'PUT', { default_language: 'fr', allowed_domains: ['a.example.com', 'A.example.com'] }, { default_language: 'fr', allowed_domains: ['a.example.com'] }],
    ];
    let expected: Record<string, unknown> = before;
    for (const [who, method, account, effect] of changes) {
      const res = await api(method, url(), tenant.tokens[who as 'partner'], { account });
      expected = { ...expected, ...effect, updated_at: expect.stringMatching(ISO) };
      expect([who, res.status, res.body]).toEqual([who, 200, expected]);
      expect(accountJson((await stored(tenant.account.id))!)).toEqual(res.body);
    }
  });

  it('refuses a non-admin member with 403 and changes nothing', async () => {
    const before = await stored(tenant.account.id);
    for (const method of ['PUT', 'PATCH']) {
      const res = await api(method, url(), tenant.tokens.member, { account: { name: 'Hijacked' } });
      expect([method, res.status, res.body]).toEqual([method, 403, NEEDS_ADMIN]);
    }
    expect(await stored(tenant.account.id)).toEqual(before);
  });

  it('answers 404 to tokens that do not reach the account and changes nothing', async () => {
    const before = await stored(tenant.account.id);
    for (const token of [b.tokens.partner, b.tokens.admin, b.tokens.account, stranger.token]) {
      const res = await api('PUT', url(), token, { account: { name: 'Hijacked' } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    expect(await stored(tenant.account.id)).toEqual(before);
  });

  it('validates like create', async () => {
    const res = await api('PATCH', url(), tenant.tokens.admin, { account: { name: ' ', domain: 'garbage' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid("Name can't be blank", 'Domain is invalid'));
  });

  it("lets the partner move the account between its own groups, never into another partner's", async () => {
    const second = await insertGroup(t.services.db, tenant.partner.id, { name: 'Second' });
    const moved = await api('PUT', url(), tenant.tokens.partner, { account: { group_id: second.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.group_id).toBe(second.id);

    for (const group_id of [b.group.id, null]) {
      const res = await api('PUT', url(), tenant.tokens.partner, { account: { group_id } });
      expect([group_id, res.status, res.body]).toEqual([group_id, 422, invalid('Group must exist')]);
    }
    expect((await stored(tenant.account.id))!.group_id).toBe(second.id);

    const back = await api('PATCH', url(), tenant.tokens.partner, { account: { group_id: tenant.group.id } });
    expect(back.body.group_id).toBe(tenant.group.id);
  });

  it("does not let an admin or the account token take the account out of its partner's group", async () => {
    for (const who of ['admin', 'account'] as const) {
      for (const group_id of [null, b.group.id, randomUUID()]) {
        const res = await api('PATCH', url(), tenant.tokens[who], { account: { group_id } });
        expect([who, group_id, res.status, res.body]).toEqual([who, group_id, 422, invalid('Group must exist')]);
      }
    }
    expect((await stored(tenant.account.id))!.group_id).toBe(tenant.group.id);
    expect((await api('GET', url(), tenant.tokens.partner)).status).toBe(200);

    const unchanged = await api('PUT', url(), tenant.tokens.admin, { account: { group_id: tenant.group.id, name: 'Echoed' } });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ group_id: tenant.group.id, name: 'Echoed' });
  });
});

describe('DELETE /accounts/{id}', () => {
  it('refuses a member, a non-owner admin and the account token with 403', async () => {
    const tenant = await freshTenant('Keep');
    const { user: otherAdmin, token: otherAdminToken } = await createUser(t.services, 'Second admin');
    await insertMembership(t.services.db, tenant.account.id, otherAdmin.id, true);
    for (const [who, token] of [['member', tenant.tokens.member], ['second admin', otherAdminToken], ['account', tenant.tokens.account]]) {
      const res = await api('DELETE', `/api/v1/accounts/${tenant.account.id}`, token);
      expect([who, res.status, res.body]).toEqual([who, 403, OWNER_ONLY]);
    }
    expect(await stored(tenant.account.id)).toBeDefined();
  });

  it('answers 404 to tokens that do not reach the account', async () => {
    for (const token of [b.tokens.partner, b.tokens.admin, stranger.token]) {
      const res = await api('DELETE', `/api/v1/accounts/${a.account.id}`, token);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    expect(await stored(a.account.id)).toBeDefined();
  });

  /** Deletes the tenant's account with `token`: answered as deleted, and no longer stored. */
  async function expectDeleted(tenant: Tenant, token: string) {
    const res = await api('DELETE', `/api/v1/accounts/${tenant.account.id}`, token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Account was deleted successfully' });
    expect(await stored(tenant.account.id)).toBeUndefined();
  }

  it('lets the owner delete it, with its memberships and tokens', async () => {
    const tenant = await freshTenant('Owned');
    await expectDeleted(tenant, tenant.tokens.admin);
    expect(await membership(tenant.account.id, tenant.member.id)).toBeUndefined();

    const gone = await api('GET', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.admin);
    expect(gone.status).toBe(404);
    const orphanToken = await api('GET', '/api/v1/accounts', tenant.tokens.account);
    expect(orphanToken.status).toBe(401);
  });

  it('lets the partner delete it', async () => {
    const tenant = await freshTenant('Partnered');
    await expectDeleted(tenant, tenant.tokens.partner);
  });
});

describe('pagination of GET /accounts', () => {
  const TOTAL = 25;
  let tenant: Tenant;
  let user: { id: string; token: string };
  /** The tenant's accounts in the contract's order: created_at, then id. */
  let ordered: string[];

  beforeAll(async () => {
    tenant = await freshTenant('Paged');
    const created = await createUser(t.services, 'Paged user');
    user = { id: created.user.id, token: created.token };
    const same = new Date('2026-03-01T12:00:00.000Z');
    // Random (not time-ordered) ids: only an explicit tie-break on id keeps the order stable.
    const rows = Array.from({ length: TOTAL }, (_, i) => ({
      id: randomUUID(), name: `Paged ${i}`, domain: `p${i}.example.com`, allowed_domains: '[]', group_id: tenant.group.id, created_at: same,
    }));
    await t.services.db.insertInto('accounts').values(rows).execute();
    await t.services.db.insertInto('account_users')
      .values(rows.map((row) => ({ id: randomUUID(), account_id: row.id, user_id: user.id, admin: false })))
      .execute();
    ordered = rows.map((row) => row.id).sort();
  });

  /** Follows next_url from `start` to the end; returns every id seen and the pages. */
  async function walk(token: string, start: string) {
    const seen: string[] = [];
    const pages: unknown[] = [];
    let url: string | null = start;
    while (url) {
      const res = await api('GET', url, token);
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      pages.push(res.body.pagination);
      url = res.body.pagination.next === null ? null : res.body.pagination.next_url;
    }
    return { seen, pages };
  }

  it('never repeats nor skips an account across pages, for a partner and for a user', async () => {
    const forUser = await walk(user.token, '/api/v1/accounts?per_page=4');
    expect(forUser.seen).toEqual(ordered);
    expect(forUser.pages).toHaveLength(7);

    // The tenant's own account was created now, after the seeded ones.
    const forPartner = await walk(tenant.tokens.partner, `/api/v1/accounts?per_page=6&group_id=${tenant.group.id}`);
    expect(forPartner.seen).toEqual([...ordered, tenant.account.id]);
  });

  it('carries the filters into the links, page first', async () => {
    const query = `per_page=10&group_id=${tenant.group.id}&onboarding_status=account_created`;
    const res = await api('GET', `/api/v1/accounts?page=2&${query}`, tenant.tokens.partner);
    expect(res.body.pagination).toEqual({
      prev_url: `/api/v1/accounts?page=1&${query}`,
      next_url: `/api/v1/accounts?page=3&${query}`,
      count: TOTAL + 1, page: 2, prev: 1, next: 3,
    });
    expect(ids(res)).toEqual(ordered.slice(10, 20));
  });

  it('serves the last page and an empty page past the end with the true count', async () => {
    const last = await api('GET', '/api/v1/accounts?page=3&per_page=10', user.token);
    expect(last.body.pagination).toEqual({
      prev_url: '/api/v1/accounts?page=2&per_page=10', next_url: '/api/v1/accounts?page=', count: TOTAL, page: 3, prev: 2, next: null,
    });
    expect(ids(last)).toEqual(ordered.slice(20));

    const past = await api('GET', '/api/v1/accounts?page=4&per_page=10', user.token);
    expect(past.body).toEqual({
      pagination: { prev_url: '/api/v1/accounts?page=3&per_page=10', next_url: '/api/v1/accounts?page=', count: TOTAL, page: 4, prev: 3, next: null },
      data: [],
    });
  });

  it('serves 20 per page by default', async () => {
    const res = await api('GET', '/api/v1/accounts', user.token);
    expect(res.body.pagination).toEqual({
      prev_url: '/api/v1/accounts?page=', next_url: '/api/v1/accounts?page=2', count: TOTAL, page: 1, prev: null, next: 2,
    });
    expect(ids(res)).toEqual(ordered.slice(0, 20));
  });

  it('lets an account token page through its single account', async () => {
    const res = await api('GET', '/api/v1/accounts?page=2&per_page=1', tenant.tokens.account);
    expect(res.body).toEqual({
      pagination: { prev_url: '/api/v1/accounts?page=1&per_page=1', next_url: '/api/v1/accounts?page=', count: 1, page: 2, prev: 1, next: null },
      data: [],
    });
  });
});
