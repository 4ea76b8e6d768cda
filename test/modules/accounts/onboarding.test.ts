/**
 * The onboarding status is derived from facts. Categories and the widget do not exist yet, so the
 * facts are written straight into the database: accounts.vendors_setup_at, accounts.code_installed_at
 * and account_recent_visitors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ONBOARDING_STATUSES } from '../../../src/modules/accounts/accounts.schema.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t } = fileApp();

const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

function facts(accountId: string) {
  const { db } = t.services;
  return {
    set: (fields: { vendors_setup_at?: Date | null; code_installed_at?: Date | null }) =>
      db.updateTable('accounts').set(fields).where('id', '=', accountId).execute(),
    visitors: (count: number, lastSeenAt: Date, prefix = 'session') =>
      db.insertInto('account_recent_visitors')
        .values(Array.from({ length: count }, (_, i) => ({ account_id: accountId, session_id: `${prefix}-${i}`, last_seen_at: lastSeenAt })))
        .execute(),
    seenAt: (lastSeenAt: Date) =>
      db.updateTable('account_recent_visitors').set({ last_seen_at: lastSeenAt }).where('account_id', '=', accountId).execute(),
  };
}

describe('onboarding_status', () => {
  let tenant: Tenant;
  /** A second account of the same partner that stays `account_created`, so filters have something to leave out. */
  let bystander: string;
  let fact: ReturnType<typeof facts>;

  beforeAll(async () => {
    tenant = await createTenant(t.services, 'Onboarding');
    const res = await call(t.app, 'POST', '/api/v1/accounts', {
      token: tenant.tokens.partner,
      body: { account: { name: 'Bystander', domain: 'bystander.example.com', group_id: tenant.group.id } },
    });
    expect(res.status).toBe(201);
    bystander = res.body.id;
    fact = facts(tenant.account.id);
  });

  /** The status shows on GET /accounts/{id}, and each filter lists the account under that status only. */
  async function expectStatus(status: string) {
    for (const who of ['partner', 'admin', 'account'] as const) {
      const res = await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens[who] });
      expect([who, res.status, res.body.onboarding_status]).toEqual([who, 200, status]);
    }
    for (const filter of ONBOARDING_STATUSES) {
      const res = await call(t.app, 'GET', '/api/v1/accounts', { token: tenant.tokens.partner, query: { onboarding_status: filter } });
      expect(res.status).toBe(200);
      const expected = [
        ...(filter === status ? [tenant.account.id] : []),
        ...(filter === 'account_created' ? [bystander] : []),
      ];
      const listed = res.body.data.map((account: { id: string; onboarding_status: string }) => account.id);
      expect([filter, listed, res.body.pagination.count]).toEqual([filter, expected, expected.length]);
      for (const account of res.body.data) expect(account.onboarding_status).toBe(filter);
    }
  }

  // One account walks the whole way; each step builds on the one before.
  it('starts as account_created', async () => {
    await expectStatus('account_created');
  });

  it('is vendors_setup once vendors are configured', async () => {
    await fact.set({ vendors_setup_at: new Date() });
    await expectStatus('vendors_setup');
  });

  it('is code_installed once the banner code is installed', async () => {
    await fact.set({ code_installed_at: new Date() });
    await expectStatus('code_installed');
  });

  it('stays code_installed with 9 recent visitors and visitors older than 30 days', async () => {
    await fact.visitors(9, daysAgo(1), 'recent');
    await fact.visitors(5, daysAgo(31), 'old');
    await expectStatus('code_installed');
  });

  it('is live with 10 distinct visitors in the last 30 days', async () => {
    await fact.visitors(1, daysAgo(29), 'tenth');
    await expectStatus('live');
  });

  it('is inactive once the installation and the visits are more than 30 days old', async () => {
    await fact.set({ code_installed_at: daysAgo(45) });
    await fact.seenAt(daysAgo(31));
    await expectStatus('inactive');
  });

  it('is live again when 10 visitors come back', async () => {
    await fact.visitors(10, new Date(), 'back');
    await expectStatus('live');
  });
});

describe('onboarding_status from the facts alone', () => {
  it.each([
    ['code installed without vendors', { code_installed_at: daysAgo(2) }, 'code_installed'],
    ['code installed long ago with no visitor', { vendors_setup_at: daysAgo(90), code_installed_at: daysAgo(60) }, 'inactive'],
    ['vendors set up long ago, no code', { vendors_setup_at: daysAgo(400) }, 'vendors_setup'],
  ])('%s is %s', async (_, fields, status) => {
    const tenant = await createTenant(t.services, 'Facts');
    await facts(tenant.account.id).set(fields);
    const res = await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.partner });
    expect(res.body.onboarding_status).toBe(status);
  });

  it('counts visitors of the account only', async () => {
    const busy = await createTenant(t.services, 'Busy');
    const quiet = await createTenant(t.services, 'Quiet');
    await facts(busy.account.id).visitors(10, new Date());
    await facts(busy.account.id).set({ code_installed_at: daysAgo(1) });
    await facts(quiet.account.id).set({ code_installed_at: daysAgo(40) });
    const status = async (tenant: Tenant) =>
      (await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.admin })).body.onboarding_status;
    expect([await status(busy), await status(quiet)]).toEqual(['live', 'inactive']);
  });
});

describe('the visitors behind the status, counted by the server', () => {
  const recent = (accountId: string) => t.services.db.selectFrom('account_recent_visitors').select(['session_id', 'last_seen_at'])
    .where('account_id', '=', accountId).orderBy('session_id').execute();
  const status = async (tenant: Tenant) =>
    (await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.admin })).body.onboarding_status;

  it('keeps an account\'s 10 most recent sessions, which decide live and inactive exactly', async () => {
    const tenant = await createTenant(t.services, 'Counted');
    for (let n = 0; n < 25; n++) t.services.visits.count(tenant.account.id, `s-${String(n).padStart(2, '0')}`);
    await t.services.visits.flush();
    expect(await recent(tenant.account.id)).toHaveLength(10);
    expect(await status(tenant)).toBe('live');

    // A month later only three of them come back: the ten kept are those three and seven of the old ones.
    await t.services.db.updateTable('account_recent_visitors').set({ last_seen_at: daysAgo(35) }).where('account_id', '=', tenant.account.id).execute();
    await facts(tenant.account.id).set({ code_installed_at: daysAgo(60) });
    for (const session of ['s-00', 'new-1', 'new-2']) t.services.visits.count(tenant.account.id, session);
    await t.services.visits.flush();
    const kept = await recent(tenant.account.id);
    expect(kept).toHaveLength(10);
    expect(kept.filter((v) => v.last_seen_at > daysAgo(1)).map((v) => v.session_id)).toEqual(['new-1', 'new-2', 's-00']);
    expect(await status(tenant)).toBe('inactive');

    for (let n = 0; n < 7; n++) t.services.visits.count(tenant.account.id, `back-${n}`);
    await t.services.visits.flush();
    expect(await status(tenant)).toBe('live');
  });
});

describe('the status as a client of the API sees it', () => {
  it('walks to live through the API alone, each step answered at once', async () => {
    const tenant = await createTenant(t.services, 'Through the API');
    const status = async (who: 'partner' | 'account' = 'partner') =>
      (await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens[who] })).body.onboarding_status;
    const listed = async () => (await call(t.app, 'GET', '/api/v1/accounts', { token: tenant.tokens.partner, query: { onboarding_status: 'live' } }))
      .body.data.map((account: { id: string }) => account.id);
    expect(await status()).toBe('account_created');
    const category = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name: 'Analytics' } } });
    expect(category.status).toBe(201);
    expect(await status()).toBe('vendors_setup');
    const consent = (session: string) => call(t.app, 'POST', '/api/v1/consents', {
      token: tenant.tokens.account,
      body: { consent: { session_id: session, user_preferences: { accept_type: 'custom', accepted_categories: [category.body.data.id], rejected_categories: [] } } },
    });
    const first = await consent('visitor-0');
    expect([first.status, first.body]).toEqual([201, expect.anything()]);
    expect(await status()).toBe('code_installed');
    for (let n = 1; n < 9; n++) expect((await consent(`visitor-${n}`)).status).toBe(201);
    expect((await consent('visitor-0')).status).toBe(201);
    expect(await status()).toBe('code_installed');
    expect((await consent('visitor-9')).status).toBe(201);
    // No waiting for the visit counter's next flush: the tenth visitor shows on the next read.
    expect([await status(), await status('account'), await listed()]).toEqual(['live', 'live', [tenant.account.id]]);
  });
});
