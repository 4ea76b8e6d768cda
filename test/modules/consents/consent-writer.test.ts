import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { ConsentWriter } from '../../../src/modules/consents/consent-writer.ts';
import { fromStored, type NewConsent } from '../../../src/modules/consents/consents.repository.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [tenant] } = fileApp({ env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' }, tenants: ['Writer'] });

const consent = (sessionId: string): NewConsent => ({
  id: newId(), account_id: tenant.account.id, session_id: sessionId, user_id: null,
  user_preferences: { accept_type: 'all', accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} },
  url: null, user_agent: null, ip_address: null, gpc: false, created_at: new Date(),
});

const stored = async (prefix: string) =>
  (await t.services.db.selectFrom('consents').select('session_id').where('session_id', 'like', `${prefix}%`).execute()).map((r) => r.session_id).sort();

describe('group commit', () => {
  it('stores requests arriving together in shared batches, all answered 201, counts exact', async () => {
    const before = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '1' } });
    const body = (i: number) => ({ consent: { session_id: `burst-${i}`, user_preferences: { accept_type: 'all' } } });
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: body(i) })));
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(await stored('burst-')).toHaveLength(200);
    const after = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '1' } });
    expect(after.body.pagination.count).toBe(before.body.pagination.count + 200);
    await t.services.visits.flush();
    const stats = await t.services.db.selectFrom('account_daily_stats').selectAll().where('account_id', '=', tenant.account.id).executeTakeFirstOrThrow();
    expect(stats.visitors).toBeGreaterThanOrEqual(200);
  });

  it('stores every field of a batch exactly as written, whatever characters it holds', async () => {
    const hostile = ['', 'NULL', 'null', '"quoted"', 'back\\slash', '{braces,commas}', "it's", 'tab\tnew\nline', 'ünïcødé ✓ 🍪', ' spaced '];
    const writer = new ConsentWriter(t.services.connection, { maxBatch: 50, maxQueue: 100, concurrency: 1 });
    const written = hostile.map((text, i): NewConsent => ({
      ...consent(`exact-${i}-${text}`),
      user_id: i % 2 ? null : text,
      user_preferences: { accept_type: 'custom', accepted_categories: [], rejected_categories: [], accepted_services: { [text]: [text] }, rejected_services: {} },
      url: i % 3 ? text : null,
      user_agent: text,
      ip_address: i % 2 ? '192.0.2.0' : null,
      gpc: i % 2 === 0,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i, 123)),
    }));
    await Promise.all(written.map((c) => writer.write(c)));
    await writer.close();
    const rows = await t.services.db.selectFrom('consent_records').selectAll().where('id', 'in', written.map((c) => c.id)).execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const c of written) expect(fromStored(byId.get(c.id)!)).toMatchObject(c);
  });

  it('isolates a failing row: it fails alone, its batch-mates are stored', async () => {
    await sql`alter table consents add constraint refuse_poison check (session_id <> 'poison')`.execute(t.services.db);
    try {
      const writer = new ConsentWriter(t.services.connection, { maxBatch: 50, maxQueue: 100, concurrency: 1 });
      const names = ['iso-1', 'iso-2', 'poison', 'iso-3'];
      const results = await Promise.allSettled(names.map((name) => writer.write(consent(name))));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(await stored('iso-')).toEqual(['iso-1', 'iso-2', 'iso-3']);
      expect(await stored('poison')).toEqual([]);
      await writer.close();
    } finally {
      await sql`alter table consents drop constraint refuse_poison`.execute(t.services.db);
    }
  });

  it('refuses with 503 and Retry-After when the queue is full, and loses nothing it accepted', async () => {
    const writer = new ConsentWriter(t.services.connection, { maxBatch: 2, maxQueue: 3, concurrency: 1 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => writer.write(consent(`queue-${i}`))));
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.reason).toMatchObject({ statusCode: 503, headers: { 'retry-after': '1' } });
    expect(await stored('queue-')).toHaveLength(results.length - refused.length);
    await writer.close();
  });

  it('drains on close: everything accepted is committed before close resolves', async () => {
    const writer = new ConsentWriter(t.services.connection, { maxBatch: 10, maxQueue: 1000, concurrency: 2 });
    const writes = Array.from({ length: 100 }, (_, i) => writer.write(consent(`drain-${i}`)));
    await writer.close();
    await Promise.all(writes);
    expect(await stored('drain-')).toHaveLength(100);
    await expect(writer.write(consent('late'))).rejects.toMatchObject({ statusCode: 503 });
  });
});

describe('visit counting', () => {
  it('counts every pageview, and each session once a day, per account, in one batch or across batches', async () => {
    const [one, two] = [await createTenant(t.services, 'VisitsOne'), await createTenant(t.services, 'VisitsTwo')];
    const today = async (tenant: Tenant) => {
      const row = await t.services.db.selectFrom('account_daily_stats').select(['pageviews', 'visitors'])
        .where('account_id', '=', tenant.account.id).executeTakeFirst();
      return row ?? { pageviews: 0, visitors: 0 };
    };
    const visits = t.services.visits;
    for (const [tenant, session] of [[one, 'a'], [one, 'a'], [two, 'a'], [one, 'b'], [one, undefined]] as const) visits.count(tenant.account.id, session);
    await visits.flush();
    expect([await today(one), await today(two)]).toEqual([{ pageviews: 4, visitors: 2 }, { pageviews: 1, visitors: 1 }]);
    // Across batches a session counts once a day: the day's visitors are its merged sketch's count.
    for (const session of ['a', 'c']) visits.count(one.account.id, session);
    await visits.flush();
    expect(await today(one)).toEqual({ pageviews: 6, visitors: 3 });
    const recent = await t.services.db.selectFrom('account_recent_visitors').select('session_id').where('account_id', '=', one.account.id).orderBy('session_id').execute();
    expect(recent.map((v) => v.session_id)).toEqual(['a', 'b', 'c']);
  });
});
