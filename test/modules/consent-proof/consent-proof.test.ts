/**
 * Proof of consent: the hash chain (tampering through SQL is caught), the visitor's receipt, the
 * daily checkpoints, the streamed export, erasure and retention, on the real engines.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { ConsentWriter, type ConsentWriterOptions } from '../../../src/modules/consents/consent-writer.ts';
import { chainPage } from '../../../src/modules/consent-proof/consent-proof.repository.ts';
import { exportConsents, verifyChain } from '../../../src/modules/consent-proof/consent-proof.service.ts';
import { fromStored, type NewConsent } from '../../../src/modules/consents/consents.repository.ts';
import { call, ENGINE, startApp } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t } = fileApp({ env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' } });

const prefs = { accept_type: 'all' as const, accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} };
const newConsent = (tenant: Tenant, sessionId: string, createdAt = new Date(), userId: string | null = null): NewConsent => ({
  id: newId(), account_id: tenant.account.id, session_id: sessionId, user_id: userId, user_preferences: prefs,
  url: 'https://shop.example.com/', user_agent: 'Test', ip_address: '192.0.2.0', gpc: false, created_at: createdAt,
});

/** Records consents through the public route, one after the other; answers their ids. */
async function record(tenant: Tenant, sessions: string[], userId?: string): Promise<string[]> {
  const ids: string[] = [];
  for (const session of sessions) {
    const res = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
      body: { consent: { session_id: session, user_id: userId, url: 'https://shop.example.com/a', user_preferences: { accept_type: 'all' } } },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.data.id);
  }
  return ids;
}

const verify = async (tenant: Tenant) => {
  const res = await call(t.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.member });
  expect(res.status).toBe(200);
  return res.body;
};

const exportOf = async (tenant: Tenant, query: Record<string, string> = {}) => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/consents/export', headers: { authorization: `Bearer ${tenant.tokens.account}` }, query });
  expect(res.statusCode).toBe(200);
  return { body: res.body, headers: res.headers };
};
const ndjson = (text: string) => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));

describe('the hash chain', () => {
  it('verifies a chain written through the API, and numbers it without gaps', async () => {
    const tenant = await createTenant(t.services, 'Chained');
    expect(await verify(tenant)).toEqual({ valid: true, checked: 0, first_bad_id: null });
    await record(tenant, ['a', 'b', 'c']);
    const api = await call(t.app, 'POST', '/api/v1/consents', { token: tenant.tokens.admin, body: { consent: { session_id: 'd', user_preferences: { accept_type: 'necessary' } } } });
    expect(api.status).toBe(201);
    expect(await verify(tenant)).toEqual({ valid: true, checked: 4, first_bad_id: null });
    const rows = ndjson((await exportOf(tenant)).body);
    expect(rows.map((r) => r.chain_seq)).toEqual([1, 2, 3, 4]);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(4);
    for (const row of rows) expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('detects an edited row', async () => {
    const tenant = await createTenant(t.services, 'Edited');
    const ids = await record(tenant, ['a', 'b', 'c', 'd']);
    await sql`update consents set accept_type = 'necessary' where id = ${ids[1]}`.execute(t.services.db);
    expect(await verify(tenant)).toEqual({ valid: false, checked: 1, first_bad_id: ids[1] });
  });

  it('detects a consent given another stored choice, and an edited choice', async () => {
    const tenant = await createTenant(t.services, 'EditedChoice');
    for (const name of ['Analytics', 'Marketing']) {
      expect((await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name } } })).status).toBe(201);
    }
    const ids = await record(tenant, ['a', 'b']);
    const api = await call(t.app, 'POST', '/api/v1/consents', { token: tenant.tokens.admin, body: { consent: { session_id: 'c', user_preferences: { accept_type: 'necessary' } } } });
    expect(api.status).toBe(201);
    const choiceOf = async (id: string) => (await t.services.db.selectFrom('consents').select('choice_id').where('id', '=', id).executeTakeFirstOrThrow()).choice_id;
    const [shared, other] = [await choiceOf(ids[0]), await choiceOf(api.body.data.id)];
    expect(await choiceOf(ids[1])).toBe(shared);
    expect(other).not.toBe(shared);
    await sql`update consents set choice_id = ${other} where id = ${ids[1]}`.execute(t.services.db);
    expect(await verify(tenant)).toEqual({ valid: false, checked: 1, first_bad_id: ids[1] });
    await sql`update consents set choice_id = ${shared} where id = ${ids[1]}`.execute(t.services.db);
    expect(await verify(tenant)).toEqual({ valid: true, checked: 3, first_bad_id: null });
    await sql`update consent_choices set accepted_categories = accepted_categories[1:1] where id = ${shared}`.execute(t.services.db);
    expect(await verify(tenant)).toEqual({ valid: false, checked: 0, first_bad_id: ids[0] });
  });

  it('detects an edited personal field, and an edited time', async () => {
    const tenant = await createTenant(t.services, 'EditedPersonal');
    const ids = await record(tenant, ['a', 'b', 'c']);
    await sql`update consents set url = 'https://elsewhere.example/' where id = ${ids[2]}`.execute(t.services.db);
    expect(await verify(tenant)).toEqual({ valid: false, checked: 2, first_bad_id: ids[2] });
    await sql`update consents set url = 'https://shop.example.com/a' where id = ${ids[2]}`.execute(t.services.db);
    expect((await verify(tenant)).valid).toBe(true);
    await sql`update consents set created_at = created_at - interval '1 day' where id = ${ids[0]}`.execute(t.services.db);
    expect(await verify(tenant)).toEqual({ valid: false, checked: 0, first_bad_id: ids[0] });
  });

  it('detects a deleted row, in the middle or at the end', async () => {
    const tenant = await createTenant(t.services, 'Deleted');
    const ids = await record(tenant, ['a', 'b', 'c', 'd']);
    await t.services.db.deleteFrom('consents').where('id', '=', ids[1]).execute();
    expect(await verify(tenant)).toEqual({ valid: false, checked: 1, first_bad_id: ids[2] });
    const tail = await createTenant(t.services, 'DeletedTail');
    const tailIds = await record(tail, ['a', 'b', 'c']);
    await t.services.db.deleteFrom('consents').where('id', '=', tailIds[2]).execute();
    expect(await verify(tail)).toEqual({ valid: false, checked: 2, first_bad_id: null });
  });

  it('detects an inserted row, outside the chain or forged at its end', async () => {
    const tenant = await createTenant(t.services, 'Inserted');
    await record(tenant, ['a', 'b']);
    const outside = newId();
    await t.services.db.insertInto('consents').values({ id: outside, account_id: tenant.account.id, session_id: 'x', gpc: false, accept_type: prefs.accept_type }).execute();
    expect(await verify(tenant)).toEqual({ valid: false, checked: 0, first_bad_id: outside });

    const forged = await createTenant(t.services, 'Forged');
    await record(forged, ['a', 'b']);
    const [last] = await t.services.db.selectFrom('consents').select(['hash']).where('account_id', '=', forged.account.id).where('chain_seq', '=', 2).execute();
    const fake = newId();
    await t.services.db.insertInto('consents').values({
      id: fake, account_id: forged.account.id, session_id: 'x', gpc: false, accept_type: prefs.accept_type, chain_seq: 3, hash: last.hash,
    }).execute();
    expect(await verify(forged)).toEqual({ valid: false, checked: 2, first_bad_id: fake });
  });

  it('is never forked by two writers (two instances) writing the same accounts at once', async () => {
    const tenants = [await createTenant(t.services, 'TwoWriters'), await createTenant(t.services, 'TwoWritersToo')];
    // On PostgreSQL the second writer belongs to a second instance; embedded, to a second writer of this one.
    const peer = ENGINE === 'postgres' ? await startApp({ shareWith: t }) : undefined;
    const one = new ConsentWriter(t.services.connection, { maxBatch: 7, maxQueue: 1000, concurrency: 2 });
    const two = new ConsentWriter((peer ?? t).services.connection, { maxBatch: 5, maxQueue: 1000, concurrency: 2 });
    // Both writers bring the same new choices, in batches holding both accounts: each choice is
    // stored once per account, and every consent refers to its own.
    const lists = [[newId()], [newId(), newId()], []].map((accepted) => ({ ...prefs, accepted_categories: accepted }));
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 120; i++) {
      writes.push((i % 2 ? one : two).write({ ...newConsent(tenants[Math.floor(i / 2) % 2], `w-${i}`), user_preferences: lists[i % 3] }));
    }
    await Promise.all(writes);
    await one.close();
    await two.close();
    await peer?.close();
    for (const tenant of tenants) {
      expect(await verify(tenant)).toEqual({ valid: true, checked: 60, first_bad_id: null });
      const choices = await t.services.db.selectFrom('consent_choices').select('accepted_categories').where('account_id', '=', tenant.account.id).execute();
      expect(choices.map((c) => c.accepted_categories).sort()).toEqual([lists[0].accepted_categories, lists[1].accepted_categories].sort());
      const stored = await t.services.db.selectFrom('consent_records').select(['session_id', 'accepted_categories']).where('account_id', '=', tenant.account.id).execute();
      for (const row of stored) expect(row.accepted_categories ?? []).toEqual(lists[Number(row.session_id.slice(2)) % 3].accepted_categories);
      const count = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '1' } });
      expect(count.body.pagination.count).toBe(60);
    }
  });
});

describe('the chain with country, region, mode and GPP string', () => {
  const GPP = 'DBABLA~BVQqAAAAAgA.QA';
  const placed = { country: 'US', region: 'US-CA', mode: 'opt-out', gpp_string: GPP };

  it('verifies consents without them (as stored before) and with them on one chain, and catches a change to any of them', async () => {
    const tenant = await createTenant(t.services, 'ChainedPlaces');
    const old = await record(tenant, ['before-1', 'before-2']);
    const api = await call(t.app, 'POST', '/api/v1/consents', {
      token: tenant.tokens.admin, body: { consent: { session_id: 'placed-api', user_preferences: { accept_type: 'all' }, ...placed } },
    });
    expect(api.status).toBe(201);
    expect(api.body.data).toMatchObject(placed);
    const widget = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
      body: { consent: { session_id: 'placed-widget', user_preferences: { accept_type: 'necessary' }, country: 'DE', mode: 'opt-in' } },
    });
    expect(widget.status).toBe(201);
    const [newer, modeOnly] = [api.body.data.id as string, widget.body.data.id as string];
    expect(await verify(tenant)).toEqual({ valid: true, checked: 4, first_bad_id: null });
    const rows = ndjson((await exportOf(tenant)).body);
    // The widget records the mode of a visitor whose place is not known (loopback): the account's default.
    expect(rows.map((r) => [r.country, r.region, r.mode, r.gpp_string])).toEqual([
      [null, null, 'opt-in', null], [null, null, 'opt-in', null], ['US', 'US-CA', 'opt-out', GPP], ['DE', null, 'opt-in', null],
    ]);

    const db = t.services.db;
    const tamperings: [string, string, ReturnType<typeof sql>][] = [
      [newer, 'country', sql`country = 'MX'`], [newer, 'country', sql`country = null`],
      [newer, 'region', sql`region = 'US-NY'`], [newer, 'region', sql`region = null`],
      [newer, 'mode', sql`mode = 'opt-in'`], [newer, 'mode', sql`mode = null`],
      [newer, 'gpp_string', sql`gpp_string = 'DBABLA~BVQqAAAAAgA.YA'`], [newer, 'gpp_string', sql`gpp_string = null`],
      [modeOnly, 'region', sql`region = 'DE-BY'`], [modeOnly, 'gpp_string', sql`gpp_string = ${GPP}`],
      [old[1], 'country', sql`country = 'FR'`], [old[1], 'mode', sql`mode = 'notice'`],
    ];
    for (const [id, field, change] of tamperings) {
      const before = await db.selectFrom('consents').select(['country', 'region', 'mode', 'gpp_string']).where('id', '=', id).executeTakeFirstOrThrow();
      await sql`update consents set ${change} where id = ${id}`.execute(db);
      const seq = rows.findIndex((r) => r.id === id);
      expect(await verify(tenant), `${field} of consent ${seq + 1}`).toEqual({ valid: false, checked: seq, first_bad_id: id });
      await sql`update consents set country = ${before.country}, region = ${before.region}, mode = ${before.mode}, gpp_string = ${before.gpp_string}
        where id = ${id}`.execute(db);
    }
    expect(await verify(tenant)).toEqual({ valid: true, checked: 4, first_bad_id: null });
  });

  it('shows them on the list, the detail, the receipt and both exports', async () => {
    const tenant = await createTenant(t.services, 'ShownPlaces');
    const res = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
      body: { consent: { session_id: 'shown', user_preferences: { accept_type: 'all' }, ...placed } },
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    const listed = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.member });
    expect(listed.body.data[0]).toMatchObject({ id, ...placed });
    expect((await call(t.app, 'GET', `/api/v1/consents/${id}`, { token: tenant.tokens.member })).body.data).toMatchObject({ id, ...placed });
    const receipt = await call(t.app, 'GET', `/widget/${tenant.account.id}/consents/${id}`, { query: { session_id: 'shown' } });
    expect(receipt.body.data).toMatchObject({ id, ...placed });
    expect(ndjson((await exportOf(tenant)).body)[0]).toMatchObject({ id, ...placed });
    const [header, line] = (await exportOf(tenant, { format: 'csv' })).body.trimEnd().split('\n');
    // The TC and AC strings (issue 47) and the notice hash (issue 49) come after them, empty here.
    expect(header.endsWith(',erased_at,country,region,mode,gpp_string,tc_string,ac_string,notice_hash')).toBe(true);
    expect(line.endsWith(`,US,US-CA,opt-out,${GPP},,,`)).toBe(true);
  });
});

describe('two writers recording for one account', () => {
  /** An account with one consent, and two writers for it; on PostgreSQL the second belongs to a second instance. */
  async function twoWriters(name: string, options: ConsentWriterOptions) {
    const tenant = await createTenant(t.services, name);
    await record(tenant, ['first']);
    const peer = ENGINE === 'postgres' ? await startApp({ shareWith: t }) : undefined;
    const writers = [new ConsentWriter(t.services.connection, options), new ConsentWriter((peer ?? t).services.connection, options)];
    return {
      tenant,
      /** The writer of the `i`th consent: the two take turns. */
      writer: (i: number) => writers[i % 2],
      async close() {
        for (const writer of writers) await writer.close();
        await peer?.close();
      },
    };
  }

  it('take turns after their first collision instead of racing, and lose nothing', async () => {
    let lost = 0;
    const { tenant, writer, close } = await twoWriters('TakingTurns', { maxBatch: 5, maxQueue: 1000, concurrency: 1, onLostRace: () => lost++ });
    await Promise.all(Array.from({ length: 200 }, (_, i) => writer(i).write(newConsent(tenant, `turn-${i}`))));
    await close();
    // Each writer loses at most one round: from then on it locks the account's head before chaining.
    // Without the lock, each of the ~40 rounds could lose to the other writer's.
    expect(lost).toBeGreaterThanOrEqual(1);
    expect(lost).toBeLessThanOrEqual(2);
    expect(await verify(tenant)).toEqual({ valid: true, checked: 201, first_bad_id: null });
  });

  it('store in a turn what queued up for the account while it waited, and answer it', async () => {
    let taken = 0;
    const { tenant, writer, close } = await twoWriters('TurnsGather', { maxBatch: 50, maxQueue: 1000, concurrency: 1, onBatch: (size) => (taken += size) });
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      writes.push(writer(i).write(newConsent(tenant, `gather-${i}`)));
      if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await Promise.all(writes);
    await close();
    // Fewer consents were taken from the queues as batches than were stored: the rest joined a turn.
    expect(taken).toBeLessThan(200);
    expect(await verify(tenant)).toEqual({ valid: true, checked: 201, first_bad_id: null });
    const stored = await t.services.db.selectFrom('consents').select('session_id').where('account_id', '=', tenant.account.id).execute();
    expect(new Set(stored.map((row) => row.session_id)).size).toBe(201);
  });

  it('fail a bad row of a turn alone: the rest of the turn, what joined it included, is stored', async () => {
    const { tenant, writer, close } = await twoWriters('TurnsPoison', { maxBatch: 50, maxQueue: 1000, concurrency: 1 });
    await sql`alter table consents add constraint refuse_poison check (session_id not like 'poison%')`.execute(t.services.db);
    try {
      // Each write's outcome is taken as it settles: a refusal while the loop still waits is handled.
      const outcomes: Array<Promise<string>> = [];
      for (let i = 0; i < 120; i++) {
        const session = i % 40 === 39 ? `poison-${i}` : `fine-${i}`;
        outcomes.push(writer(i).write(newConsent(tenant, session)).then(() => 'stored', () => `refused ${session}`));
        if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      const refused = (await Promise.all(outcomes)).filter((outcome) => outcome !== 'stored');
      expect(refused).toEqual(['refused poison-39', 'refused poison-79', 'refused poison-119']);
      expect(await verify(tenant)).toEqual({ valid: true, checked: 118, first_bad_id: null });
    } finally {
      await close();
      await sql`alter table consents drop constraint refuse_poison`.execute(t.services.db);
    }
  });
});

describe('the visitor\'s receipt', () => {
  it('shows the consent and its hash to the session that gave it, and to no one else', async () => {
    const tenant = await createTenant(t.services, 'Receipt');
    const other = await createTenant(t.services, 'ReceiptOther');
    const [id] = await record(tenant, ['visitor-1']);
    const url = `/widget/${tenant.account.id}/consents/${id}`;
    const res = await call(t.app, 'GET', url, { query: { session_id: 'visitor-1' } });
    expect(res.status).toBe(200);
    const [exportedRow] = ndjson((await exportOf(tenant)).body);
    expect(res.body.data).toEqual({
      id, created_at: exportedRow.created_at, user_preferences: exportedRow.user_preferences, gpc: false,
      url: 'https://shop.example.com/a', country: null, region: null, mode: 'opt-in', gpp_string: null, tc_string: null, ac_string: null, notice_hash: null,
      chain_seq: 1, hash: exportedRow.hash, personal_hash: exportedRow.personal_hash,
    });
    const notFound = { errors: [{ code: 404, message: 'Record not found' }] };
    expect(await call(t.app, 'GET', url, { query: { session_id: 'someone-else' } })).toMatchObject({ status: 404, body: notFound });
    expect(await call(t.app, 'GET', `/widget/${other.account.id}/consents/${id}`, { query: { session_id: 'visitor-1' } })).toMatchObject({ status: 404, body: notFound });
    const unnamed = await call(t.app, 'GET', url);
    expect(unnamed.status).toBe(400);
    expect(JSON.stringify(unnamed.body)).toContain('session_id is required');
    expect((await call(t.app, 'GET', url, { query: { session_id: 'visitor-1' }, headers: { origin: 'https://evil.example' } })).status).toBe(403);
  });
});

describe('daily checkpoints', () => {
  it('hold each day\'s last link: the head after that day\'s last consent', async () => {
    const tenant = await createTenant(t.services, 'Checkpoints');
    const writer = new ConsentWriter(t.services.connection, { maxBatch: 10, maxQueue: 100, concurrency: 1 });
    const day = (d: number, h: number) => new Date(Date.UTC(2026, 10, d, h));
    for (const at of [day(1, 10), day(1, 20), day(2, 8), day(4, 9), day(4, 23)]) await writer.write(newConsent(tenant, `s-${at.getTime()}`, at));
    await writer.close();
    const res = await call(t.app, 'GET', '/api/v1/consents/checkpoints', { token: tenant.tokens.member, query: { from: '2026-11-01', to: '2026-11-30' } });
    expect(res.status).toBe(200);
    const rows = ndjson((await exportOf(tenant)).body);
    expect(res.body.data).toEqual([
      { day: '2026-11-01', consents: 2, chain_seq: 2, consent_id: rows[1].id, hash: rows[1].hash },
      { day: '2026-11-02', consents: 1, chain_seq: 3, consent_id: rows[2].id, hash: rows[2].hash },
      { day: '2026-11-04', consents: 2, chain_seq: 5, consent_id: rows[4].id, hash: rows[4].hash },
    ]);
    const backwards = await call(t.app, 'GET', '/api/v1/consents/checkpoints', { token: tenant.tokens.member, query: { from: '2026-11-30', to: '2026-11-01' } });
    expect(backwards).toMatchObject({ status: 400, body: { errors: [{ code: 400, message: 'from must not be after to' }] } });
  });
});

describe('GET /consents/export', () => {
  it('streams the same consents as the list, with the same filters, as NDJSON and CSV', async () => {
    const tenant = await createTenant(t.services, 'Export');
    const other = await createTenant(t.services, 'ExportOther');
    await record(other, ['not-mine']);
    await record(tenant, Array.from({ length: 30 }, (_, i) => `s-${i % 7}`), 'user-7');
    await record(tenant, ['tricky,"quoted"\nline']);
    const list = async (query: Record<string, string>) => {
      const res = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '100', order: 'asc', ...query } });
      return res.body.data;
    };
    const all = await exportOf(tenant);
    expect(all.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const exported = ndjson(all.body);
    const listed = await list({});
    expect(exported).toHaveLength(31);
    expect(exported.map((row) => { const { chain_seq: _s, hash: _h, personal_hash: _p, erased_at: _e, ...rest } = row; return rest; })).toEqual(listed);
    const bySession = ndjson((await exportOf(tenant, { session_id: 's-3' })).body).map((row) => row.id);
    expect(bySession).toEqual((await list({ session_id: 's-3' })).map((row: { id: string }) => row.id));
    const after = listed[10].created_at;
    expect(ndjson((await exportOf(tenant, { created_after: after })).body).map((r) => r.id))
      .toEqual((await list({ created_after: after })).map((row: { id: string }) => row.id));

    const csv = await exportOf(tenant, { format: 'csv' });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.trimEnd().split('\n');
    expect(lines[0]).toBe('id,created_at,session_id,user_id,accept_type,accepted_categories,accepted_category_names,rejected_categories,rejected_category_names,accepted_services,rejected_services,url,user_agent,ip_address,gpc,chain_seq,hash,personal_hash,erased_at,country,region,mode,gpp_string,tc_string,ac_string,notice_hash');
    expect(lines).toHaveLength(1 + 31 + 1); // the quoted session holds a line break
    expect(csv.body).toContain('"tricky,""quoted""\nline"');
    expect(lines[1].startsWith(`${exported[0].id},${exported[0].created_at},s-0,user-7,all,`)).toBe(true);

    // Pages of 7 rows: the cursor carries on from each page's last row, with no overlap and no gap.
    let paged = '';
    for await (const chunk of exportConsents(t.services.db, tenant.account.id, {}, 'ndjson', { rows: 7, bytes: 1 << 30 })) paged += chunk;
    expect(ndjson(paged)).toEqual(exported);
    let pagedCsv = '';
    for await (const chunk of exportConsents(t.services.db, tenant.account.id, {}, 'csv', { rows: 4, bytes: 1 << 30 })) pagedCsv += chunk;
    expect(pagedCsv).toBe(csv.body);

    const bad = await call(t.app, 'GET', '/api/v1/consents/export', { token: tenant.tokens.account, query: { format: 'xml' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: [{ code: 400, message: expect.any(String) }] });
  });

  it('writes the category names beside their ids in the CSV, in the same order, quoted and defused like any written text', async () => {
    const tenant = await createTenant(t.services, 'ExportNames');
    const made = async (name: string, required = false) =>
      (await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name, required } } })).body.data.id as string;
    const necessary = await made('Necessary', true);
    const analytics = await made('Analytics, "web"');
    const gone = await made('Gone soon');
    const marketing = await made('=Marketing');
    const res = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
      body: { consent: { session_id: 'named', user_preferences: {
        accept_type: 'custom', accepted_categories: [necessary, analytics, gone], rejected_categories: [marketing],
      } } },
    });
    expect(res.status).toBe(201);
    expect((await call(t.app, 'DELETE', `/api/v1/categories/${gone}`, { token: tenant.tokens.account })).status).toBe(200);
    const csv = (await exportOf(tenant, { format: 'csv' })).body.trimEnd().split('\n');
    const columns = csv[0].split(',');
    const line = csv[1];
    const ids = `${necessary} ${analytics} ${gone}`;
    // The names follow the ids in their order; a deleted category is named so; quotes doubled, a leading "=" defused.
    expect(line).toContain(`,${ids},"Necessary; Analytics, ""web""; (deleted)",${marketing},'=Marketing,`);
    expect(columns.indexOf('accepted_category_names')).toBe(columns.indexOf('accepted_categories') + 1);
    expect(columns.indexOf('rejected_category_names')).toBe(columns.indexOf('rejected_categories') + 1);
    // NDJSON keeps its shape: ids only, as the API's list.
    expect(ndjson((await exportOf(tenant)).body)[0].user_preferences.accepted_categories).toEqual([necessary, analytics, gone]);
  });
});

describe('consents of tens of kilobytes', () => {
  // As recorded before a consent's services were bounded in total: 80 keys of 200 names, ~150 KB
  // as JSON. Thousands of them in one page made a string past Node's limit and killed the server.
  const huge = (salt: number) => Object.fromEntries(Array.from({ length: 80 }, (_, key) =>
    [`vendor-${salt}-${key}`, Array.from({ length: 200 }, (_, name) => `s${name}`)]));

  it('are exported and verified in pages bounded by bytes, whole and in order', async () => {
    const tenant = await createTenant(t.services, 'Huge');
    const writer = new ConsentWriter(t.services.connection, { maxBatch: 4, maxQueue: 100, concurrency: 1 });
    for (let i = 0; i < 12; i++) {
      const preferences = { ...prefs, accept_type: 'custom' as const, accepted_services: huge(i), rejected_services: huge(i + 100) };
      await writer.write({ ...newConsent(tenant, `huge-${i}`, new Date(Date.now() - 60_000 + i)), user_preferences: preferences });
    }
    await writer.close();
    const budget = 400_000;
    for (const format of ['ndjson', 'csv'] as const) {
      const whole = (await exportOf(tenant, { format })).body;
      const chunks: string[] = [];
      for await (const chunk of exportConsents(t.services.db, tenant.account.id, {}, format, { rows: 5_000, bytes: budget })) chunks.push(String(chunk));
      const rows = chunks.filter((chunk) => !chunk.startsWith('id,')).map((chunk) => chunk.trimEnd().split('\n'));
      const longest = Math.max(...rows.flat().map((line) => Buffer.byteLength(line) + 1));
      // A page takes rows until the rows before them fill the budget: at most the budget and one row.
      expect(rows.length).toBeGreaterThan(3);
      for (const page of rows) expect(Buffer.byteLength(page.join('\n'))).toBeLessThanOrEqual(budget + longest);
      expect(chunks.join('')).toBe(whole);
      expect(rows.flat()).toHaveLength(12);
    }
    const firstPage = await chainPage(t.services.db, tenant.account.id, 0, { rows: 2_000, bytes: budget });
    expect(firstPage.more).toBe(true);
    expect(firstPage.rows.length).toBeGreaterThan(0);
    expect(firstPage.rows.length).toBeLessThan(5);
    expect(await verifyChain(t.services.db, tenant.account.id)).toEqual({ valid: true, checked: 12, first_bad_id: null });
  });
});

describe('GET /consents/{id}', () => {
  it('shows a consent with its place in the chain, the same as the export, and after erasure its erasure', async () => {
    const tenant = await createTenant(t.services, 'Detailed');
    const other = await createTenant(t.services, 'DetailedOther');
    const [first, second] = await record(tenant, ['detail-1', 'detail-2'], 'user-9');
    const exported = ndjson((await exportOf(tenant)).body);
    const detail = async (id: string, token = tenant.tokens.member) => call(t.app, 'GET', `/api/v1/consents/${id}`, { token });
    for (const [index, id] of [first, second].entries()) {
      const res = await detail(id);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(exported[index]);
      expect(res.body.data).toMatchObject({ chain_seq: index + 1, hash: expect.stringMatching(/^[0-9a-f]{64}$/), erased_at: null });
    }
    expect(await detail(first, other.tokens.account)).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });
    await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { user_id: 'user-9' } });
    const erased = (await detail(first)).body.data;
    expect(erased).toMatchObject({
      session_id: '', user_id: null, chain_seq: 1, hash: exported[0].hash, personal_hash: exported[0].personal_hash,
      erased_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });
});

describe('POST /consents/erase', () => {
  it('clears the personal fields of a user\'s consents, keeps the records and the chain valid, and logs it', async () => {
    const tenant = await createTenant(t.services, 'Erase');
    await record(tenant, ['keep-1']);
    const erased = await record(tenant, ['gone-1', 'gone-2'], 'user-42');
    await record(tenant, ['keep-2']);
    await t.services.visits.flush();
    const res = await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { user_id: 'user-42' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.any(String), subject_type: 'user_id', subject_hash: expect.stringMatching(/^[0-9a-f]{64}$/), consents: 2,
      erased_by_type: 'User', erased_by_id: tenant.admin.id, created_at: expect.any(String),
    });
    const rows = (await t.services.db.selectFrom('consent_records').selectAll().where('id', 'in', erased).execute()).map(fromStored);
    for (const row of rows) {
      expect(row).toMatchObject({ session_id: '', user_id: null, ip_address: null, user_agent: null, url: null, personal_salt: null });
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.erased_at).toBeInstanceOf(Date);
    }
    expect(await verify(tenant)).toEqual({ valid: true, checked: 4, first_bad_id: null });
    const visitors = await t.services.db.selectFrom('account_recent_visitors').select('session_id').where('account_id', '=', tenant.account.id).execute();
    expect(visitors.map((v) => v.session_id).sort()).toEqual(['keep-1', 'keep-2']);
    const audit = await t.services.db.selectFrom('consent_erasures').selectAll().where('account_id', '=', tenant.account.id).execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain('user-42');

    const bySession = await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.account, body: { session_id: 'keep-2' } });
    expect(bySession.body.data).toMatchObject({ subject_type: 'session_id', consents: 1, erased_by_type: 'API' });
    expect(await verify(tenant)).toEqual({ valid: true, checked: 4, first_bad_id: null });
  });

  it('answers 422 without a subject or with both, and 403 to a member', async () => {
    const tenant = await createTenant(t.services, 'EraseBad');
    const erase = (body: unknown, token = tenant.tokens.admin) => call(t.app, 'POST', '/api/v1/consents/erase', { token, body });
    expect(await erase({})).toMatchObject({ status: 422, body: { errors: [{ error: 'User id or session id can\'t be blank' }] } });
    expect(await erase({ user_id: 'a', session_id: 'b' })).toMatchObject({ status: 422, body: { errors: [{ error: 'User id and session id cannot both be given' }] } });
    expect((await erase({ user_id: 'a' }, tenant.tokens.member)).status).toBe(403);
  });

  it('lists the erasure log newest first, finds a subject by its identifier, and shows no other account\'s', async () => {
    const tenant = await createTenant(t.services, 'EraseLog');
    const other = await createTenant(t.services, 'EraseLogOther');
    await record(tenant, ['log-1'], 'user-log');
    const erase = (who: typeof tenant, body: unknown) => call(t.app, 'POST', '/api/v1/consents/erase', { token: who.tokens.admin, body });
    const first = (await erase(tenant, { user_id: 'user-log' })).body.data;
    const second = (await erase(tenant, { session_id: 'never-seen' })).body.data;
    await erase(other, { user_id: 'user-log' });
    const list = (query = '', token = tenant.tokens.member) => call(t.app, 'GET', `/api/v1/consents/erasures${query}`, { token });

    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.data.map((e: { id: string }) => e.id)).toEqual([second.id, first.id]);
    expect(all.body.pagination).toMatchObject({ count: 2 });
    expect(all.body.data[1]).toEqual(first);
    expect((await list('?order=asc&limit=1')).body.data.map((e: { id: string }) => e.id)).toEqual([first.id]);
    expect((await list('?user_id=user-log')).body.data.map((e: { id: string }) => e.id)).toEqual([first.id]);
    expect((await list('?session_id=never-seen')).body.data.map((e: { id: string }) => e.id)).toEqual([second.id]);
    expect((await list('?user_id=never-seen')).body.data).toEqual([]);
    expect(JSON.stringify(all.body)).not.toContain('user-log');

    expect((await list('?user_id=a&session_id=b')).status).toBe(400);
    expect((await list('?limit=0')).status).toBe(400);
    expect((await list('', other.tokens.account)).body.data).toHaveLength(1);
  });

  it('keeps a live account live when one of its visitors is erased', async () => {
    const tenant = await createTenant(t.services, 'EraseLive');
    await record(tenant, Array.from({ length: 11 }, (_, i) => `live-${String(i).padStart(2, '0')}`));
    await t.services.visits.flush();
    const status = async () => (await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.admin })).body.onboarding_status;
    expect(await status()).toBe('live');
    const erased = await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { session_id: 'live-00' } });
    expect(erased.body.data.consents).toBe(1);
    // Ten other visitors remain in the last 30 days.
    expect(await status()).toBe('live');
    const kept = async () => (await t.services.db.selectFrom('account_recent_visitors').select('session_id').where('account_id', '=', tenant.account.id).execute())
      .map((row) => row.session_id);
    expect(await kept()).not.toContain('live-00');
    // Erased by user id: the session stays out, though another of its consents had no user id.
    await record(tenant, ['live-01'], 'user-77');
    await t.services.visits.flush();
    const byUser = await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { user_id: 'user-77' } });
    expect(byUser.body.data.consents).toBe(1);
    expect(await kept()).not.toContain('live-01');
  });

  it('erases only in the caller\'s account', async () => {
    const tenant = await createTenant(t.services, 'EraseMine');
    const other = await createTenant(t.services, 'EraseTheirs');
    await record(other, ['shared-session']);
    const res = await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { session_id: 'shared-session' } });
    expect(res.body.data.consents).toBe(0);
    const theirs = await t.services.db.selectFrom('consents').select('session_id').where('account_id', '=', other.account.id).execute();
    expect(theirs).toEqual([{ session_id: 'shared-session' }]);
  });
});

describe('retention', () => {
  it('removes exactly the consents older than the account\'s retention, and the rest still verifies', async () => {
    const tenant = await createTenant(t.services, 'Retention');
    const neighbour = await createTenant(t.services, 'RetentionNeighbour');
    const patch = await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.admin, body: { account: { consent_retention_days: 30 } } });
    expect(patch.status).toBe(200);
    expect(patch.body.consent_retention_days).toBe(30);
    const tooShort = await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.admin, body: { account: { consent_retention_days: 29 } } });
    expect(tooShort).toMatchObject({ status: 422, body: { errors: [{ error: 'Consent retention days must be greater than or equal to 30' }] } });

    const now = Date.now();
    const ago = (days: number) => new Date(now - days * 86_400_000);
    const writer = new ConsentWriter(t.services.connection, { maxBatch: 3, maxQueue: 100, concurrency: 1 });
    const ages = [40, 35, 30.01, 29.99, 29, 5, 0];
    const written = ages.map((age, i) => newConsent(tenant, `r-${i}`, ago(age)));
    for (const c of written) await writer.write(c);
    await writer.write(newConsent(neighbour, 'old', ago(100)));
    await writer.close();

    const removed = await t.services.retention.run(new Date(now));
    expect(removed).toBe(3);
    const left = await t.services.db.selectFrom('consents').select('id').where('account_id', '=', tenant.account.id).orderBy('chain_seq').execute();
    expect(left.map((r) => r.id)).toEqual(written.slice(3).map((c) => c.id));
    expect(await verify(tenant)).toEqual({ valid: true, checked: 4, first_bad_id: null });
    const count = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '1' } });
    expect(count.body.pagination.count).toBe(4);
    // The neighbour keeps 730 days by default.
    expect(await t.services.db.selectFrom('consents').select('id').where('account_id', '=', neighbour.account.id).execute()).toHaveLength(1);
    expect(await t.services.retention.run(new Date(now))).toBe(0);
  });
});

describe('isolation', () => {
  it('verifies, exports and lists checkpoints of the caller\'s account only', async () => {
    const mine = await createTenant(t.services, 'IsoMine');
    const theirs = await createTenant(t.services, 'IsoTheirs');
    await record(theirs, ['t-1', 't-2']);
    await record(mine, ['m-1']);
    expect(await verify(mine)).toEqual({ valid: true, checked: 1, first_bad_id: null });
    expect(ndjson((await exportOf(mine)).body).map((r) => r.session_id)).toEqual(['m-1']);
    const checkpoints = await call(t.app, 'GET', '/api/v1/consents/checkpoints', { token: mine.tokens.account });
    expect(checkpoints.body.data.map((c: { consents: number }) => c.consents)).toEqual([1]);
  });
});
