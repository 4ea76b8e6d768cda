/**
 * The statistics per country and per mode (`by=country`, `by=mode`), of an account and of a group:
 * on random consents recorded by the writer and through the API, every figure equals what the
 * stored consents say, for the whole span and for a part of it.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentMode } from '../../../src/db/schema.ts';
import { newId } from '../../../src/db/ids.ts';
import { insertAccount } from '../../../src/modules/accounts/accounts.repository.ts';
import { ConsentWriter } from '../../../src/modules/consents/consent-writer.ts';
import type { NewConsent } from '../../../src/modules/consents/consents.repository.ts';
import { call, startApp, type TestApp } from '../../helpers/app.ts';
import { insertCategory } from '../../helpers/records.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

let t: TestApp;
let tenant: Tenant;
let second: string;
let stranger: Tenant;

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const START = Date.UTC(2026, 4, 1);
const SPAN_DAYS = 40;
const COUNTRIES = ['DE', 'US', 'FR', 'BR', null];
const MODES: (ConsentMode | null)[] = ['opt-in', 'opt-out', 'notice', 'none', null];

beforeAll(async () => {
  t = await startApp({ env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '1000000' } });
  tenant = await createTenant(t.services, 'Breakdown');
  stranger = await createTenant(t.services, 'BreakdownStranger');
  second = (await insertAccount(t.services.db, {
    name: 'Second shop', domain: 'second-shop.example.com', allowed_domains: [], group_id: tenant.group.id, owner_id: null, default_language: 'en',
  })).id;
  const categories = [
    await insertCategory(t.services, tenant.account.id, { name: 'Necessary', required: true }),
    await insertCategory(t.services, tenant.account.id, { name: 'Analytics' }),
    await insertCategory(t.services, tenant.account.id, { name: 'Marketing' }),
  ];
  const optional = categories.slice(1).map((c) => c.id);
  const next = random(20261206);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  const times = Array.from({ length: 500 }, () => new Date(START + Math.floor(next() * SPAN_DAYS * 86_400_000))).sort((a, b) => a.getTime() - b.getTime());
  const consents: NewConsent[] = times.map((at) => {
    const type = pick(['all', 'custom', 'necessary'] as const);
    // A custom choice may reject nothing: it is then no opt-out, whatever the mode.
    const accepted = type === 'all' ? optional : type === 'necessary' ? [] : optional.filter(() => next() < 0.5);
    const country = pick(COUNTRIES);
    const accountId = pick([tenant.account.id, tenant.account.id, second, stranger.account.id]);
    return {
      id: newId(), account_id: accountId, session_id: `s-${Math.floor(next() * 200)}`, user_id: null,
      user_preferences: {
        accept_type: type, accepted_categories: [categories[0].id, ...accepted], rejected_categories: optional.filter((id) => !accepted.includes(id)),
        accepted_services: {}, rejected_services: {},
      },
      url: null, user_agent: null, ip_address: null, gpc: next() < 0.2, created_at: at,
      country, region: country === 'US' ? pick(['US-CA', 'US-VA', null]) : null, mode: pick(MODES), gpp_string: null,
    };
  });
  const writer = new ConsentWriter(t.services.connection, { maxBatch: 40, maxQueue: 1000, concurrency: 2 });
  await Promise.all(consents.map((c) => writer.write(c)));
  await writer.close();
  // And today's, through the API, as a back end records them.
  for (const [i, country] of ['US', 'US', 'DE', null].entries()) {
    const res = await call(t.app, 'POST', '/api/v1/consents', {
      token: tenant.tokens.admin,
      body: { consent: { session_id: `api-${i}`, country, mode: country === 'US' ? 'opt-out' : 'opt-in', user_preferences: { accept_type: 'necessary' } } },
    });
    expect(res.status).toBe(201);
  }
}, 180_000);
afterAll(async () => { await t.close(); });

interface Entry {
  value: string | null;
  consents: number;
  accept_types: { all: number; custom: number; necessary: number };
  opt_outs: number;
  gpc: number;
}

/** The breakdown as counted from the stored consents themselves. */
async function fromRows(accountIds: string[], from: string, to: string, by: 'country' | 'mode'): Promise<Entry[]> {
  const rows = await sql<{ country: string | null; mode: string | null; accept_type: 'all' | 'custom' | 'necessary'; rejected: number; gpc: boolean }>`
    select country, mode, accept_type, coalesce(cardinality(rejected_categories), 0) as rejected, gpc from consent_records
    where account_id = any(${accountIds}::uuid[]) and created_at >= ${from}::date and created_at < ${to}::date + 1`.execute(t.services.db);
  const entries = new Map<string | null, Entry>();
  for (const row of rows.rows) {
    const value = row[by];
    let entry = entries.get(value);
    if (!entry) entries.set(value, (entry = { value, consents: 0, accept_types: { all: 0, custom: 0, necessary: 0 }, opt_outs: 0, gpc: 0 }));
    entry.consents++;
    entry.accept_types[row.accept_type]++;
    if (row.mode === 'opt-out' && Number(row.rejected) > 0) entry.opt_outs++;
    if (row.gpc) entry.gpc++;
  }
  return [...entries.values()];
}

const share = (part: number, whole: number) => Math.round((part / whole) * 10_000) / 10_000;

/** The answer's entries equal the rows', with their rates, most consents first, the unknown last among equals. */
function expectBreakdown(got: Array<Entry & Record<string, unknown>>, want: Entry[]) {
  const key = (e: { value: string | null }) => e.value ?? '(none)';
  expect([...got].sort((a, b) => key(a).localeCompare(key(b)))).toEqual([...want].sort((a, b) => key(a).localeCompare(key(b))).map((e) => ({
    ...e,
    accept_all_rate: share(e.accept_types.all, e.consents),
    reject_all_rate: share(e.accept_types.necessary, e.consents),
    custom_rate: share(e.accept_types.custom, e.consents),
    opt_out_rate: share(e.opt_outs, e.consents),
    gpc_share: share(e.gpc, e.consents),
  })));
  for (let i = 1; i < got.length; i++) {
    expect(got[i - 1].consents).toBeGreaterThanOrEqual(got[i].consents);
    if (got[i - 1].consents === got[i].consents) expect(got[i - 1].value).not.toBeNull();
  }
}

const today = new Date().toISOString().slice(0, 10);

describe('GET /stats?by=', () => {
  it.each([
    ['country', '2026-05-01', '2026-06-09'], ['mode', '2026-05-01', '2026-06-09'],
    ['country', '2026-05-10', '2026-05-20'], ['mode', '2026-05-10', '2026-05-20'],
    ['country', today, today],
  ] as const)('by %s from %s to %s equals the stored consents, and adds up to the totals', async (by, from, to) => {
    const res = await call(t.app, 'GET', '/api/v1/stats', { token: tenant.tokens.member, query: { from, to, by } });
    expect(res.status).toBe(200);
    const want = await fromRows([tenant.account.id], from, to, by);
    expect(want.length).toBeGreaterThan(1);
    expectBreakdown(res.body.breakdown, want);
    expect(res.body.breakdown.reduce((sum: number, e: Entry) => sum + e.consents, 0)).toBe(res.body.totals.consents);
    // Opt-outs happen only in opt-out mode, and some of the random ones did.
    if (by === 'mode') {
      expect(res.body.breakdown.filter((e: Entry) => e.value !== 'opt-out').every((e: Entry) => e.opt_outs === 0)).toBe(true);
      expect(res.body.breakdown.find((e: Entry) => e.value === 'opt-out').opt_outs).toBeGreaterThan(0);
    }
  });

  it('is left out without by, empty for a range without consents, and 400 for an unknown by', async () => {
    const plain = await call(t.app, 'GET', '/api/v1/stats', { token: tenant.tokens.member, query: { from: '2026-05-01', to: '2026-06-09' } });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('breakdown');
    const empty = await call(t.app, 'GET', '/api/v1/stats', { token: tenant.tokens.member, query: { from: '2025-01-01', to: '2025-01-31', by: 'mode' } });
    expect(empty.body.breakdown).toEqual([]);
    const bad = await call(t.app, 'GET', '/api/v1/stats', { token: tenant.tokens.member, query: { by: 'region' } });
    expect(bad).toMatchObject({ status: 400, body: { errors: [{ code: 400, message: 'by is not one of the allowed values' }] } });
  });
});

describe('GET /groups/{id}/stats?by=', () => {
  it('sums the group\'s accounts, and no other account', async () => {
    for (const by of ['country', 'mode'] as const) {
      const res = await call(t.app, 'GET', `/api/v1/groups/${tenant.group.id}/stats`, {
        token: tenant.tokens.partner, query: { from: '2026-05-01', to: '2026-06-09', interval: 'week', by },
      });
      expect(res.status).toBe(200);
      expectBreakdown(res.body.breakdown, await fromRows([tenant.account.id, second], '2026-05-01', '2026-06-09', by));
      expect(res.body.breakdown.reduce((sum: number, e: Entry) => sum + e.consents, 0)).toBe(res.body.totals.consents);
    }
  });
});
