import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { insertCategory, insertUsualCategories } from '../../helpers/records.ts';
import { createTenant } from '../../helpers/tenants.ts';

const { t, tenants: [tenant, other] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Consents', 'Elsewhere'] });
let necessary: { id: string }, analytics: { id: string }, marketing: { id: string };
beforeAll(async () => {
  ({ necessary, analytics, marketing } = await insertUsualCategories(t.services, tenant.account.id));
});

const preferences = (accepted: string[], rejected: string[] = []) => ({
  accept_type: rejected.length ? 'custom' : 'all',
  accepted_categories: accepted,
  rejected_categories: rejected,
  accepted_services: { google: ['_ga', '_gid'] },
  rejected_services: {},
});

const record = (token: string, consent: unknown, headers: Record<string, string> = {}) =>
  call(t.app, 'POST', '/api/v1/consents', { token, body: { consent }, headers });

describe('POST /consents', () => {
  it('records a consent with masked IP, user agent and GPC, and stores it before answering', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/v1/consents', remoteAddress: '203.0.113.77',
      headers: { authorization: `Bearer ${tenant.tokens.account}`, 'user-agent': 'TestBrowser/1.0', 'sec-gpc': '1' },
      payload: { consent: { session_id: 'sess-1', user_id: 'user-9', url: 'https://shop.example.com/', user_preferences: preferences([necessary.id, analytics.id], [marketing.id]) } },
    });
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(data).toEqual({
      id: expect.any(String),
      session_id: 'sess-1',
      user_id: 'user-9',
      url: 'https://shop.example.com/',
      user_preferences: {
        accept_type: 'custom',
        accepted_categories: [necessary.id, analytics.id],
        rejected_categories: [marketing.id],
        accepted_services: { google: ['_ga', '_gid'] },
        rejected_services: {},
      },
      user_agent: 'TestBrowser/1.0',
      ip_address: '203.0.113.0',
      gpc: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      country: null,
      region: null,
      mode: null,
      gpp_string: null,
      tc_string: null,
      ac_string: null,
      notice_hash: null,
    });
    const stored = await t.services.db.selectFrom('consents').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ account_id: tenant.account.id, ip_address: '203.0.113.0', gpc: true });
    const fetched = await call(t.app, 'GET', `/api/v1/consents/${data.id}`, { token: tenant.tokens.member });
    expect(fetched).toMatchObject({ status: 200, body: { data } });
  });

  it('refuses unknown or foreign categories, overlaps and rejected required categories', async () => {
    const foreign = await insertCategory(t.services, other.account.id, { name: 'Theirs' });
    const cases: [unknown, string][] = [
      [preferences([foreign.id]), 'Accepted categories must exist'],
      [preferences(['not-a-uuid']), 'Accepted categories must exist'],
      [preferences([analytics.id], [analytics.id]), 'Rejected categories cannot include an accepted category'],
      [preferences([analytics.id], [necessary.id]), 'Rejected categories cannot include a required category'],
    ];
    for (const [prefs, message] of cases) {
      const res = await record(tenant.tokens.account, { session_id: 's', user_preferences: prefs });
      expect(res.status).toBe(422);
      expect(res.body.errors).toContainEqual({ error: message });
    }
    const bad = await record(tenant.tokens.account, { session_id: '', user_preferences: { accept_type: 'maybe' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual(expect.arrayContaining([{ error: "Session id can't be blank" }, { error: 'Accept type is not included in the list' }]));
  });

  it('is a write: a non-admin member may not record', async () => {
    const res = await record(tenant.tokens.member, { session_id: 's', user_preferences: preferences([]) });
    expect(res).toMatchObject({ status: 403, body: { errors: [{ code: 403, message: 'User must be an admin of this account' }] } });
  });

  it('never answers 2xx for a consent that was not stored', async () => {
    const stored = async () => Number((await t.services.db.selectFrom('consents').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await stored();
    // A constraint the insert violates: the database refuses the row, the client must hear it.
    await sql`alter table consents add constraint refuse_doomed check (session_id <> 'doomed')`.execute(t.services.db);
    try {
      const res = await record(tenant.tokens.account, { session_id: 'doomed', user_preferences: preferences([]) });
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(JSON.stringify(res.body)).not.toMatch(/doomed|constraint|insert/i);
      expect(await stored()).toBe(before);
    } finally {
      await sql`alter table consents drop constraint refuse_doomed`.execute(t.services.db);
    }
  });
});

describe('GET /consents', () => {
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      await record(tenant.tokens.account, { session_id: 'listing', user_id: i % 2 ? 'odd' : 'even', user_preferences: preferences([necessary.id]) });
    }
  });

  it('lists newest first, filters by session and user, and pages', async () => {
    const page1 = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.admin, query: { session_id: 'listing', limit: '2' } });
    expect(page1.status).toBe(200);
    expect(page1.body.pagination).toEqual({
      count: 5, page: 1, prev: null, next: 2,
      prev_url: '/api/v1/consents?page=',
      next_url: '/api/v1/consents?page=2&session_id=listing&limit=2',
    });
    const times = page1.body.data.map((c: { created_at: string }) => c.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const seen = new Set<string>(page1.body.data.map((c: { id: string }) => c.id));
    let next = page1.body.pagination.next_url;
    while (next !== '/api/v1/consents?page=') {
      const page = await call(t.app, 'GET', next, { token: tenant.tokens.admin });
      for (const c of page.body.data) {
        expect(seen.has(c.id)).toBe(false);
        seen.add(c.id);
      }
      next = page.body.pagination.next_url;
    }
    expect(seen.size).toBe(5);
    const odd = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.admin, query: { session_id: 'listing', user_id: 'odd' } });
    expect(odd.body.pagination.count).toBe(2);
    const asc = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.admin, query: { session_id: 'listing', order: 'asc' } });
    expect(asc.body.data.map((c: { id: string }) => c.id)).toEqual([...seen].sort());
  });

  it('tells apart sessions whose ids share the first 8 characters the session index holds', async () => {
    const shared = 'mwy7cqhx';
    const neighbour = await createTenant(t.services, 'Same sessions');
    for (const [token, session] of [[tenant.tokens.account, `${shared}-a`], [tenant.tokens.account, `${shared}-a`], [tenant.tokens.account, `${shared}-b`],
      [tenant.tokens.account, shared], [neighbour.tokens.account, `${shared}-a`]] as const) {
      expect((await record(token, { session_id: session, user_preferences: preferences([]) })).status).toBe(201);
    }
    const listed = async (session: string) => {
      const res = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.admin, query: { session_id: session } });
      return { count: res.body.pagination.count, sessions: res.body.data.map((c: { session_id: string }) => c.session_id) };
    };
    expect(await listed(`${shared}-a`)).toEqual({ count: 2, sessions: [`${shared}-a`, `${shared}-a`] });
    expect(await listed(`${shared}-b`)).toEqual({ count: 1, sessions: [`${shared}-b`] });
    expect(await listed(shared)).toEqual({ count: 1, sessions: [shared] });
    expect(await listed(`${shared}-c`)).toEqual({ count: 0, sessions: [] });
  });

  it('filters by time', async () => {
    const all = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.admin, query: { session_id: 'listing', order: 'asc' } });
    const third = all.body.data[2].created_at;
    const after = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.admin, query: { session_id: 'listing', created_after: third } });
    expect(after.body.data.every((c: { created_at: string }) => c.created_at > third)).toBe(true);
    const before = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.admin, query: { session_id: 'listing', created_before: third } });
    expect(before.body.data.every((c: { created_at: string }) => c.created_at < third)).toBe(true);
  });

  it('answers bad parameters with 400 in the single-object form', async () => {
    // The paging parameters of every list are in test/http/list-parameters.test.ts.
    const cases: [Record<string, string>, string][] = [
      [{ sort: 'session_id' }, 'sort is not one of the allowed values'],
      [{ created_after: 'yesterday' }, 'created_after must be a valid date-time'],
    ];
    for (const [query, message] of cases) {
      const res = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.admin, query });
      expect(res).toMatchObject({ status: 400, body: { error: { code: 400, message } } });
    }
  });

  it('never shows another account\'s consents', async () => {
    const theirs = await call(t.app, 'GET', '/api/v1/consents', { token: other.tokens.account });
    expect(theirs.body).toMatchObject({ pagination: { count: 0 }, data: [] });
    const mine = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '1' } });
    const foreign = await call(t.app, 'GET', `/api/v1/consents/${mine.body.data[0].id}`, { token: other.tokens.account });
    expect(foreign).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });
  });
});
