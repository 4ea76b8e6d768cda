/**
 * Statistics from the rollups: on random consents and visits, every figure equals what the raw rows
 * say (unique visitors within the HyperLogLog's error), per account and per group; and the consent
 * rate, on random visits and consents recorded through the API, is the raw rows' distinct choosers
 * over distinct visitors, never above 1.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { HyperLogLog } from '../../../src/lib/hyperloglog.ts';
import { insertAccount } from '../../../src/modules/accounts/accounts.repository.ts';
import { ConsentWriter } from '../../../src/modules/consents/consent-writer.ts';
import type { NewConsent } from '../../../src/modules/consents/consents.repository.ts';
import { periodStart } from '../../../src/modules/stats/periods.ts';
import { call, startApp, type TestApp } from '../../helpers/app.ts';
import { insertCategory } from '../../helpers/records.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

let t: TestApp;
let tenant: Tenant;
let second: string;
let categories: { id: string; required: boolean }[];
const consents: NewConsent[] = [];
/** Page-only visits (the consents count one each too). */
const pageVisits: { accountId: string; session: string; at: Date }[] = [];

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const day = (at: Date) => at.toISOString().slice(0, 10);
const START = Date.UTC(2026, 0, 1);
const SPAN_DAYS = 90;

beforeAll(async () => {
  t = await startApp({ env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '1000000' } });
  tenant = await createTenant(t.services, 'Stats');
  second = (await insertAccount(t.services.db, {
    name: 'Second site', domain: 'second.example.com', allowed_domains: [], group_id: tenant.group.id, owner_id: null, default_language: 'en',
  })).id;
  categories = [
    await insertCategory(t.services, tenant.account.id, { name: 'Necessary', required: true }),
    await insertCategory(t.services, tenant.account.id, { name: 'Analytics' }),
    await insertCategory(t.services, tenant.account.id, { name: 'Marketing' }),
  ];
  const next = random(20261123);
  const times = Array.from({ length: 400 }, () => new Date(START + Math.floor(next() * SPAN_DAYS * 86_400_000))).sort((a, b) => a.getTime() - b.getTime());
  for (const at of times) {
    const type = (['all', 'custom', 'necessary'] as const)[Math.floor(next() * 3)];
    const optional = categories.slice(1).map((c) => c.id);
    const accepted = type === 'all' ? optional : type === 'necessary' ? [] : optional.filter(() => next() < 0.5);
    consents.push({
      id: newId(), account_id: next() < 0.8 ? tenant.account.id : second, session_id: `c-${Math.floor(next() * 120)}`, user_id: null,
      user_preferences: {
        accept_type: type, accepted_categories: [categories[0].id, ...accepted], rejected_categories: optional.filter((id) => !accepted.includes(id)),
        accepted_services: {}, rejected_services: {},
      },
      url: null, user_agent: null, ip_address: null, gpc: next() < 0.3, created_at: at,
    });
  }
  // Consents for the second account name the first account's categories in these rows: the rollup counts what was stored.
  const writer = new ConsentWriter(t.services.connection, { maxBatch: 50, maxQueue: 1000, concurrency: 1 }, t.services.visits);
  for (const c of consents) await writer.write(c);
  await writer.close();
  await t.services.visits.flush();
  const visitTimes = Array.from({ length: 600 }, () => new Date(START + Math.floor(next() * SPAN_DAYS * 86_400_000))).sort((a, b) => a.getTime() - b.getTime());
  for (const at of visitTimes) {
    const visit = { accountId: next() < 0.8 ? tenant.account.id : second, session: `p-${Math.floor(next() * 300)}`, at };
    pageVisits.push(visit);
    t.services.visits.count(visit.accountId, visit.session, at);
  }
  await t.services.visits.flush();
}, 180_000);
afterAll(async () => { await t.close(); });

/** The figures of a span of days, from the raw rows and visits. */
function expected(accountIds: string[], from: string, to: string) {
  const inSpan = (at: Date) => day(at) >= from && day(at) <= to && true;
  const rows = consents.filter((c) => accountIds.includes(c.account_id) && inSpan(c.created_at));
  const visits = [
    ...rows.map((c) => ({ accountId: c.account_id, session: c.session_id, at: c.created_at })),
    ...pageVisits.filter((v) => accountIds.includes(v.accountId) && inSpan(v.at)),
  ];
  const categoryCounts = new Map<string, { accepted: number; rejected: number }>();
  for (const c of rows) {
    for (const [ids, field] of [[c.user_preferences.accepted_categories, 'accepted'], [c.user_preferences.rejected_categories, 'rejected']] as const) {
      for (const id of ids) {
        const entry = categoryCounts.get(id) ?? { accepted: 0, rejected: 0 };
        entry[field]++;
        categoryCounts.set(id, entry);
      }
    }
  }
  return {
    consents: rows.length,
    accept_types: {
      all: rows.filter((c) => c.user_preferences.accept_type === 'all').length,
      custom: rows.filter((c) => c.user_preferences.accept_type === 'custom').length,
      necessary: rows.filter((c) => c.user_preferences.accept_type === 'necessary').length,
    },
    gpc: rows.filter((c) => c.gpc).length,
    categories: categoryCounts,
    pageviews: visits.length,
    visitors: new Set(visits.map((v) => `${v.accountId} ${v.session}`)).size,
    choosers: new Set(rows.map((c) => `${c.account_id} ${c.session_id}`)).size,
  };
}

/** Within the sketch's error: 5%, or 2 for small counts. */
const near = (actual: number, want: number) => expect(Math.abs(actual - want)).toBeLessThanOrEqual(Math.max(2, want * 0.05));

function expectFigures(actual: any, want: ReturnType<typeof expected>) {
  expect(actual.consents).toBe(want.consents);
  expect(actual.accept_types).toEqual(want.accept_types);
  expect(actual.gpc_share).toBe(want.consents ? Math.round((want.gpc / want.consents) * 10_000) / 10_000 : null);
  expect(actual.pageviews).toBe(want.pageviews);
  for (const category of actual.categories) {
    const counts = want.categories.get(category.category_id)!;
    expect({ accepted: category.accepted, rejected: category.rejected }).toEqual(counts);
  }
  expect(actual.categories).toHaveLength(want.categories.size);
  near(actual.unique_visitors, want.visitors);
  near(actual.consenting_visitors, want.choosers);
  expect(actual.consenting_visitors).toBeLessThanOrEqual(actual.unique_visitors);
  expect(actual.consent_rate).toBe(actual.unique_visitors ? Math.round((actual.consenting_visitors / actual.unique_visitors) * 10_000) / 10_000 : null);
}

const stats = (query: Record<string, string>, token = tenant.tokens.account) => call(t.app, 'GET', '/api/v1/stats', { token, query });

describe('GET /stats', () => {
  it('equals the raw rows per day (visitors within the sketch\'s error)', async () => {
    const res = await stats({ from: '2026-01-01', to: '2026-03-31', interval: 'day' });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(90);
    for (const bucket of res.body.data) {
      expect(bucket.end).toBe(bucket.start);
      expectFigures(bucket, expected([tenant.account.id], bucket.start, bucket.end));
    }
  });

  it('equals the raw rows per ISO week and per month, and in total', async () => {
    const weeks = await stats({ from: '2026-01-07', to: '2026-03-20', interval: 'week' });
    expect(weeks.body.data[0]).toMatchObject({ start: '2026-01-07', end: '2026-01-11' });
    expect(weeks.body.data[1]).toMatchObject({ start: '2026-01-12', end: '2026-01-18' });
    expect(weeks.body.data.at(-1)).toMatchObject({ start: '2026-03-16', end: '2026-03-20' });
    for (const bucket of weeks.body.data) expectFigures(bucket, expected([tenant.account.id], bucket.start, bucket.end));
    const months = await stats({ from: '2026-01-01', to: '2026-03-31', interval: 'month' });
    expect(months.body.data.map((b: { start: string; end: string }) => [b.start, b.end])).toEqual([
      ['2026-01-01', '2026-01-31'], ['2026-02-01', '2026-02-28'], ['2026-03-01', '2026-03-31'],
    ]);
    for (const bucket of months.body.data) expectFigures(bucket, expected([tenant.account.id], bucket.start, bucket.end));
    expectFigures(months.body.totals, expected([tenant.account.id], '2026-01-01', '2026-03-31'));
    const slug = months.body.totals.categories.find((c: { category_id: string }) => c.category_id === categories[1].id);
    expect(slug).toMatchObject({ slug: 'analytics', name: 'Analytics' });
  });

  it('keeps each week\'s and month\'s visitor sketch equal to the union of its days\'', async () => {
    const rows = await t.services.db.selectFrom('account_visitor_sketches').selectAll().where('account_id', '=', tenant.account.id).execute();
    const days = rows.filter((r) => r.grain === 'day');
    const periods = rows.filter((r) => r.grain !== 'day');
    expect(periods.filter((r) => r.grain === 'month')).toHaveLength(3);
    for (const period of periods) {
      const union = new HyperLogLog();
      for (const d of days) if (periodStart(day(d.start), period.grain) === day(period.start)) union.merge(d.registers);
      expect(Buffer.from(period.registers).equals(Buffer.from(union.registers)), `${period.grain} ${day(period.start)}`).toBe(true);
    }
    const months = await stats({ from: '2026-01-01', to: '2026-03-31', interval: 'month' });
    const january = new HyperLogLog();
    for (const d of days) if (day(d.start) < '2026-02-01') january.merge(d.registers);
    expect(months.body.data[0].unique_visitors).toBe(january.count());
  });

  it('compares the totals with the period of the same length before', async () => {
    const res = await stats({ from: '2026-02-15', to: '2026-03-16', interval: 'month' });
    const now = expected([tenant.account.id], '2026-02-15', '2026-03-16');
    const before = expected([tenant.account.id], '2026-01-16', '2026-02-14');
    expect(res.body.totals.previous).toMatchObject({ from: '2026-01-16', to: '2026-02-14', consents: before.consents, pageviews: before.pageviews });
    expect(res.body.totals.change.consents).toBe(Math.round(((now.consents - before.consents) / before.consents) * 10_000) / 10_000);
    expect(res.body.totals.change.pageviews).toBe(Math.round(((now.pageviews - before.pageviews) / before.pageviews) * 10_000) / 10_000);
  });

  it('answers 400 for a backwards or too long range and a bad interval, and shows no other account', async () => {
    expect(await stats({ from: '2026-03-01', to: '2026-02-01' })).toMatchObject({ status: 400, body: { errors: [{ code: 400, message: 'from must not be after to' }] } });
    expect(await stats({ from: '2010-01-01', to: '2026-02-01' })).toMatchObject({ status: 400, body: { errors: [{ code: 400, message: 'from and to must be at most 3660 days apart' }] } });
    expect((await stats({ interval: 'year' })).status).toBe(400);
    // Days past year 9999 or before year 1 would never end a loop, or fail in the database.
    for (const [query, message] of [
      [{ from: '9999-12-31', to: '9999-12-31', interval: 'month' }, 'to must be a day from 1970-01-01 to 2999-12-31'],
      [{ to: '9999-12-31' }, 'to must be a day from 1970-01-01 to 2999-12-31'],
      [{ from: '9999-12-01', to: '2026-01-01' }, 'from must be a day from 1970-01-01 to 2999-12-31'],
      [{ from: '2999-12-01', to: '3000-01-01' }, 'to must be a day from 1970-01-01 to 2999-12-31'],
      [{ from: '0001-01-01', to: '1970-01-02' }, 'from must be a day from 1970-01-01 to 2999-12-31'],
      [{ from: '0001-01-01', to: '0001-01-02' }, 'to must be a day from 1970-01-01 to 2999-12-31'],
    ] as const) {
      expect(await stats(query)).toMatchObject({ status: 400, body: { errors: [{ code: 400, message }] } });
      const group = await call(t.app, 'GET', `/api/v1/groups/${tenant.group.id}/stats`, { token: tenant.tokens.partner, query });
      expect(group).toMatchObject({ status: 400, body: { errors: [{ code: 400, message }] } });
    }
    expect((await stats({ from: '2999-12-01', to: '2999-12-31', interval: 'week' })).status).toBe(200);
    expect((await stats({ to: '1970-01-05' })).body).toMatchObject({ from: '1970-01-01', to: '1970-01-05' });
    const stranger = await createTenant(t.services, 'Stranger');
    const res = await stats({ from: '2026-01-01', to: '2026-03-31', interval: 'month' }, stranger.tokens.account);
    expect(res.body.totals).toMatchObject({ consents: 0, pageviews: 0, unique_visitors: 0, categories: [] });
  });
});

describe('the consent rate', () => {
  /** One account's visits and choices: sessions that load the banner, and consents of sessions (one may choose twice, or never load it). */
  const traffic = fc.record({
    shown: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 60 }),
    chosen: fc.array(fc.tuple(fc.integer({ min: 0, max: 45 }), fc.constantFrom('all' as const, 'necessary' as const), fc.boolean()), { maxLength: 50 }),
  });

  it('is the distinct visitors who chose over the distinct visitors shown the banner, never above 1, on random traffic through the API', async () => {
    const today = () => new Date().toISOString().slice(0, 10);
    // A group of its own: the group statistics above count the first one's accounts.
    const owner = await createTenant(t.services, 'Rate');
    const run = async ({ shown, chosen }: { shown: number[]; chosen: [number, 'all' | 'necessary', boolean][] }) => {
      const day = today();
      const account = await insertAccount(t.services.db, {
        name: 'Rate site', domain: 'rate.example.com', allowed_domains: [], group_id: owner.group.id, owner_id: null, default_language: 'en',
      });
      const token = await accountToken(owner.tokens.partner, account.id);
      for (const n of shown) {
        expect((await call(t.app, 'GET', `/widget/${account.id}/config.json`, { query: { session_id: `s-${n}` } })).status).toBe(200);
      }
      for (const [n, accept_type, bannerless] of chosen) {
        const consent = { session_id: `s-${n}`, user_preferences: { accept_type, accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} } };
        // Most choices come from the banner; some are recorded by the site's own back end, with no banner loaded.
        const res = bannerless
          ? await call(t.app, 'POST', '/api/v1/consents', { token, body: { consent } })
          : await call(t.app, 'POST', `/widget/${account.id}/consents`, { body: { consent } });
        expect(res.status).toBe(201);
      }
      await t.services.visits.flush();
      // The raw rows: the consents stored, and the sessions shown the banner.
      const rows = await t.services.db.selectFrom('consents').select('session_id').where('account_id', '=', account.id).execute();
      const choosers = new Set(rows.map((row) => row.session_id));
      const visitors = new Set([...shown.map((n) => `s-${n}`), ...choosers]);
      const want = visitors.size ? choosers.size / visitors.size : null;
      const month = await call(t.app, 'GET', '/api/v1/stats', { token, query: { interval: 'month' } });
      const oneDay = await call(t.app, 'GET', '/api/v1/stats', { token, query: { from: day, to: day } });
      if (today() !== day) return; // Midnight passed meanwhile: the visits fell on two days.
      // The span's totals merge sketches; one day's are its stored counts.
      for (const figures of [month.body.totals, oneDay.body.totals, oneDay.body.data[0]]) {
        expect(figures.consents).toBe(rows.length);
        near(figures.unique_visitors, visitors.size);
        near(figures.consenting_visitors, choosers.size);
        expect(figures.consenting_visitors).toBeLessThanOrEqual(figures.unique_visitors);
        if (want === null) expect(figures.consent_rate).toBeNull();
        else {
          expect(figures.consent_rate).toBeLessThanOrEqual(1);
          expect(Math.abs(figures.consent_rate - want)).toBeLessThanOrEqual(0.05);
        }
      }
    };
    // The example seen: 4 visitors, 5 consents (one visitor chose twice) read as 125%.
    await run({ shown: [1, 2, 3, 4], chosen: [[1, 'all', false], [2, 'all', false], [3, 'necessary', false], [4, 'all', false], [4, 'necessary', false]] });
    await fc.assert(fc.asyncProperty(traffic, run), { numRuns: 12 });
  }, 240_000);
});

/** An account token made through the API by the partner of the account's group. */
async function accountToken(partnerToken: string, accountId: string): Promise<string> {
  const made = await call(t.app, 'POST', '/api/v1/api-tokens', { token: partnerToken, body: { api_token: { name: 'rate', account_id: accountId } } });
  expect(made.status).toBe(201);
  return made.body.token;
}

describe('GET /groups/{id}/stats', () => {
  it('sums the group\'s accounts and shows each one\'s totals; another partner\'s group is 404', async () => {
    const res = await call(t.app, 'GET', `/api/v1/groups/${tenant.group.id}/stats`, { token: tenant.tokens.partner, query: { from: '2026-01-01', to: '2026-03-31', interval: 'month' } });
    expect(res.status).toBe(200);
    expectFigures(res.body.totals, expected([tenant.account.id, second], '2026-01-01', '2026-03-31'));
    const mine = expected([tenant.account.id], '2026-01-01', '2026-03-31');
    const theirs = expected([second], '2026-01-01', '2026-03-31');
    expect(res.body.accounts.map((a: { id: string; consents: number; pageviews: number }) => [a.id, a.consents, a.pageviews])).toEqual([
      [tenant.account.id, mine.consents, mine.pageviews], [second, theirs.consents, theirs.pageviews],
    ]);
    const other = await createTenant(t.services, 'OtherPartner');
    const foreign = await call(t.app, 'GET', `/api/v1/groups/${tenant.group.id}/stats`, { token: other.tokens.partner });
    expect(foreign).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });
  });
});
