import { readFileSync } from 'node:fs';
import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildAcString } from '../../../banner/src/ac-string.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const LIST = JSON.parse(readFileSync(new URL('../../fixtures/tcf/vendor-list.json', import.meta.url), 'utf8'));

const { t, tenants: [tenant, other] } = fileApp({
  env: { WIDGET_RATE_LIMIT_PER_MIN: '10000', RATE_LIMIT_MAX: '10000' },
  tenants: ['Records', 'Elsewhere'],
});

/** A TC string as a CMP writes it: consent to `purposes` and `vendors`, legitimate interest for `li`. */
function tcString(purposes: number[], vendors: number[], li: number[] = []): string {
  const model = new TCModel(new GVL(structuredClone(LIST)));
  model.cmpId = 300;
  model.cmpVersion = 2;
  model.publisherCountryCode = 'DE';
  model.isServiceSpecific = true;
  model.purposeConsents.set(purposes);
  model.vendorConsents.set(vendors);
  model.purposeLegitimateInterests.set(li);
  return TCString.encode(model);
}

const api = (method: string, url: string, body?: unknown, token = tenant.tokens.admin) => call(t.app, method, url, { token, body });
const post = (consent: Record<string, unknown>, token = tenant.tokens.admin) => api('POST', '/api/v1/consents', { consent: { user_preferences: { accept_type: 'all' }, ...consent } }, token);
const verify = async (owner: Tenant = tenant) => (await api('GET', '/api/v1/consents/verify', undefined, owner.tokens.member)).body;
const errorsOf = (res: { body: { errors: { error: string }[] } }) => res.body.errors.map((e) => e.error);

describe('the TCF strings of a consent', () => {
  const all = tcString([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [1, 4, 8], [2, 7]);
  const ac = buildAcString([2, 89, 1301], [89]);

  it('are kept from the API and the widget, and shown on the detail, the receipt and both exports', async () => {
    const res = await post({ session_id: 'api', tc_string: all, ac_string: ac });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ tc_string: all, ac_string: ac });
    const widget = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
      body: { consent: { session_id: 'visitor', user_preferences: { accept_type: 'all' }, tc_string: all, ac_string: ac } },
    });
    expect(widget.status).toBe(201);
    const id = widget.body.data.id as string;
    expect((await api('GET', `/api/v1/consents/${id}`)).body.data).toMatchObject({ tc_string: all, ac_string: ac });
    const receipt = await call(t.app, 'GET', `/widget/${tenant.account.id}/consents/${id}`, { query: { session_id: 'visitor' } });
    expect(receipt.body.data).toMatchObject({ id, tc_string: all, ac_string: ac });
    // Without them: null.
    const plain = await post({ session_id: 'none' });
    expect(plain.body.data).toMatchObject({ tc_string: null, ac_string: null });
    const ndjson = (await t.app.inject({ method: 'GET', url: '/api/v1/consents/export', headers: { authorization: `Bearer ${tenant.tokens.account}` } }))
      .body.trim().split('\n').map((line) => JSON.parse(line));
    expect(ndjson.map((row) => [row.session_id, row.tc_string, row.ac_string])).toEqual([['api', all, ac], ['visitor', all, ac], ['none', null, null]]);
    const csv = (await t.app.inject({ method: 'GET', url: '/api/v1/consents/export?format=csv', headers: { authorization: `Bearer ${tenant.tokens.account}` } })).body;
    const [header, first, , last] = csv.trimEnd().split('\n');
    // The notice hash (issue 49) follows them, empty here.
    expect(header.endsWith(',tc_string,ac_string,notice_hash')).toBe(true);
    expect(first.endsWith(`,${all},${ac},`)).toBe(true);
    expect(last.endsWith(',,,')).toBe(true);
  });

  it('are refused when the IAB library cannot decode the TC string, or the AC string is not one', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ tc_string: 'CQabcdef' }, 'Tc string is not a TC string the IAB library can decode'],
      [{ tc_string: 'not a string!' }, 'Tc string is invalid'],
      [{ tc_string: 'C'.repeat(4097) }, 'Tc string is too long (maximum is 4096 characters)'],
      [{ ac_string: '2~1.2' }, 'Ac string is not an Additional Consent string (2~1.35~dv.9.21)'],
      [{ ac_string: '2~1~dv.'.padEnd(8193, '1') }, 'Ac string is too long (maximum is 8192 characters)'],
    ];
    for (const [fields, message] of cases) {
      const res = await post({ session_id: 'bad', ...fields });
      expect(res.status, message).toBe(422);
      expect(errorsOf(res)).toEqual([message]);
    }
    // A GPP string is not a TC string.
    const widget = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
      body: { consent: { session_id: 'bad', user_preferences: { accept_type: 'all' }, tc_string: 'DBABMA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA' } },
    });
    expect(widget.status).toBe(422);
  });

  it('are in the chain: editing either breaks it, and consents without them keep verifying', async () => {
    const owner = await createTenant(t.services, 'Chained');
    const ids: string[] = [];
    for (const [session, fields] of [['a', {}], ['b', { tc_string: all }], ['c', { ac_string: ac }], ['d', { tc_string: all, ac_string: ac }]] as const) {
      const res = await post({ session_id: session, ...fields }, owner.tokens.admin);
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    expect(await verify(owner)).toEqual({ valid: true, checked: 4, first_bad_id: null });
    const db = t.services.db;
    const other = tcString([1], []);
    for (const [id, seq] of [[ids[1], 1], [ids[3], 3]] as const) {
      await sql`update consents set tc_string = ${other} where id = ${id}`.execute(db);
      expect(await verify(owner)).toEqual({ valid: false, checked: seq, first_bad_id: id });
      await sql`update consents set tc_string = null where id = ${id}`.execute(db);
      expect(await verify(owner)).toEqual({ valid: false, checked: seq, first_bad_id: id });
      await sql`update consents set tc_string = ${all} where id = ${id}`.execute(db);
    }
    for (const [id, seq] of [[ids[0], 0], [ids[2], 2]] as const) {
      const before = (await db.selectFrom('consents').select('ac_string').where('id', '=', id).executeTakeFirstOrThrow()).ac_string;
      await sql`update consents set ac_string = ${'2~1~dv.'} where id = ${id}`.execute(db);
      expect(await verify(owner)).toEqual({ valid: false, checked: seq, first_bad_id: id });
      await sql`update consents set ac_string = ${before} where id = ${id}`.execute(db);
    }
    expect(await verify(owner)).toEqual({ valid: true, checked: 4, first_bad_id: null });
  });

  it('count per purpose in the statistics, as the stored strings decode, for the account alone', async () => {
    const owner = await createTenant(t.services, 'Counted');
    const strings = [
      all, all,
      tcString([1, 7], [4]),
      tcString([], [], [2, 7, 8, 9, 10, 11]),
      tcString([1, 2, 3, 4], [1, 8], [7]),
    ];
    for (const [i, tc] of strings.entries()) expect((await post({ session_id: `s${i}`, tc_string: tc }, owner.tokens.admin)).status).toBe(201);
    expect((await post({ session_id: 'no-tcf' }, owner.tokens.admin)).status).toBe(201);
    // Another account's strings never count here.
    expect((await post({ session_id: 'x', tc_string: all }, other.tokens.admin)).status).toBe(201);
    const res = await api('GET', '/api/v1/stats?by=tcf_purpose', undefined, owner.tokens.member);
    expect(res.status).toBe(200);
    // The expectation comes from the raw rows, decoded here by the IAB library.
    const rows = await t.services.db.selectFrom('consents').select('tc_string').where('account_id', '=', owner.account.id).where('tc_string', 'is not', null).execute();
    expect(rows).toHaveLength(5);
    const decoded = rows.map((row) => TCString.decode(row.tc_string!));
    const expected = Array.from({ length: 11 }, (_, i) => {
      const consents = decoded.filter((model) => model.purposeConsents.has(i + 1)).length;
      return { purpose: i + 1, consents, legitimate_interests: decoded.filter((model) => model.purposeLegitimateInterests.has(i + 1)).length, consent_rate: consents / 5 };
    });
    expect(res.body.tcf_purposes).toEqual({ tc_strings: 5, purposes: expected });
    expect(res.body.tcf_purposes.purposes[0]).toMatchObject({ purpose: 1, consents: 4 });
    expect(res.body).not.toHaveProperty('breakdown');
    // The other breakdowns still answer theirs, and without `by` neither is there.
    expect((await api('GET', '/api/v1/stats?by=mode', undefined, owner.tokens.member)).body).not.toHaveProperty('tcf_purposes');
    expect((await api('GET', '/api/v1/stats', undefined, owner.tokens.member)).body).not.toHaveProperty('tcf_purposes');
    const empty = await api('GET', '/api/v1/stats?by=tcf_purpose', undefined, other.tokens.member);
    expect(empty.body.tcf_purposes.tc_strings).toBe(1);
  });
});
