import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { GVL } from '@iabtechlabtcf/core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const FIXTURES = new URL('../../fixtures/tcf/', import.meta.url).pathname;
const LIST = JSON.parse(readFileSync(`${FIXTURES}vendor-list.json`, 'utf8'));
const GERMAN = JSON.parse(readFileSync(`${FIXTURES}purposes-de.json`, 'utf8'));

// The folder: vendor-list.json (version 100), purposes-de.json, and the other files beside them.
const { t, tenants: [tenant, other] } = fileApp({
  env: { TCF_GVL_FILE: FIXTURES, WIDGET_RATE_LIMIT_PER_MIN: '10000', RATE_LIMIT_MAX: '10000' },
  tenants: ['Publisher', 'Other'],
});
// An app with no vendor list loaded.
const { t: bare, tenants: [bareTenant] } = fileApp({ tenants: ['Bare'] });

const api = (method: string, url: string, body?: unknown, token = tenant.tokens.admin) => call(t.app, method, url, { token, body });
const patch = (banner: unknown, token = tenant.tokens.admin) => api('PATCH', '/api/v1/banner', { banner }, token);
const errorsOf = (res: { body: { errors: { error: string }[] } }) => res.body.errors.map((e) => e.error);
const script = (accountId = tenant.account.id) => t.app.inject({ method: 'GET', url: `/widget/${accountId}.js` });
const vendors = (accountId = tenant.account.id, query = '', headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/widget/${accountId}/tcf-vendors.json${query}`, headers });

function embedded(body: string) {
  const json = /\}\)\((\{.*\})\);\n$/s.exec(body)?.[1];
  if (!json) throw new Error('no configuration in the script');
  return JSON.parse(json);
}

const ENABLED = {
  enabled: true, cmp_id: 300, cmp_version: 3, vendor_ids: [1, 4, 8], publisher_country_code: 'de',
  google_atp_ids: [89, 2], legitimate_interest_purposes: [2, 7],
  publisher_restrictions: [{ purpose_id: 2, restriction_type: 1, vendor_ids: [4] }],
};

describe('the TCF banner settings', () => {
  it('are off with their defaults until set, and the script of an account without TCF has no tcf', async () => {
    const res = await api('GET', '/api/v1/banner');
    expect(res.body.data.tcf).toEqual({
      enabled: false, cmp_id: null, cmp_version: 1, vendor_ids: [], publisher_country_code: null,
      google_atp_ids: [], legitimate_interest_purposes: [], publisher_restrictions: [],
    });
    expect(embedded((await script()).body)).not.toHaveProperty('tcf');
  });

  it('refuses enabling without a CMP ID, naming it', async () => {
    const res = await patch({ tcf: { enabled: true } });
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toEqual(["Tcf.cmp id can't be blank: enabling TCF needs the CMP ID the IAB registered"]);
    expect((await api('GET', '/api/v1/banner')).body.data.tcf.enabled).toBe(false);
  });

  it('refuses enabling without a loaded vendor list, naming it', async () => {
    const res = await call(bare.app, 'PATCH', '/api/v1/banner', { token: bareTenant.tokens.admin, body: { banner: { tcf: { enabled: true, cmp_id: 300 } } } });
    expect(res.status).toBe(422);
    expect(errorsOf(res)).toEqual([expect.stringMatching(/^Tcf cannot be enabled: no Global Vendor List is loaded/)]);
    // The same settings, off, are kept: only enabling needs the list.
    const off = await call(bare.app, 'PATCH', '/api/v1/banner', { token: bareTenant.tokens.admin, body: { banner: { tcf: { cmp_id: 300 } } } });
    expect(off.status).toBe(200);
    expect(off.body.data.tcf).toMatchObject({ enabled: false, cmp_id: 300 });
  });

  it('refuses vendors not in the list, deleted vendors, and legitimate interest the policy forbids', async () => {
    const unknown = await patch({ tcf: { vendor_ids: [1, 3, 27] } });
    expect(unknown.status).toBe(422);
    // 27 is in the list, deleted: as unknown as 3.
    expect(errorsOf(unknown)).toEqual(['Tcf.vendor ids must be vendors of the Global Vendor List in force (version 100); unknown: 3, 27']);
    const li = await patch({ tcf: { legitimate_interest_purposes: [1, 2, 4] } });
    expect(errorsOf(li)).toEqual(['Tcf.legitimate interest purposes may not include purposes 1, 4: legitimate interest is allowed for 2, 7, 8, 9, 10, 11 only']);
    const restriction = await patch({ tcf: { publisher_restrictions: [{ purpose_id: 3, restriction_type: 2, vendor_ids: [1] }, { purpose_id: 3, restriction_type: 0, vendor_ids: [1] }] } });
    expect(errorsOf(restriction)).toEqual([
      'Tcf.publisher restrictions[0].restriction type cannot require legitimate interest for purpose 3',
      'Tcf.publisher restrictions may name each purpose once',
    ]);
  });

  it('refuses out-of-range and unbounded values by the schema', async () => {
    for (const tcf of [
      { cmp_id: 1 }, { cmp_id: 4096 }, { cmp_version: 0 }, { vendor_ids: [0] }, { vendor_ids: [1, 1] },
      { vendor_ids: Array.from({ length: 2001 }, (_, i) => i + 1) }, { publisher_country_code: 'DEU' },
      { google_atp_ids: [-1] }, { legitimate_interest_purposes: [12] },
      { publisher_restrictions: [{ purpose_id: 2, restriction_type: 3, vendor_ids: [] }] }, { enabled: 'yes' },
    ]) {
      const res = await patch({ tcf });
      expect(res.status, JSON.stringify(tcf).slice(0, 80)).toBe(422);
    }
    expect((await api('GET', '/api/v1/banner')).body.data.tcf.cmp_id).toBe(null);
  });

  it('takes a complete setting, embeds it in the script, and a member cannot change it', async () => {
    const res = await patch({ tcf: ENABLED });
    expect(res.status).toBe(200);
    expect(res.body.data.tcf).toEqual({ ...ENABLED, publisher_country_code: 'DE' });
    expect((await patch({ tcf: { enabled: false } }, tenant.tokens.member)).status).toBe(403);
    expect(embedded((await script()).body).tcf).toEqual({
      cmp_id: 300, cmp_version: 3, publisher_country_code: 'DE', vendor_ids: [1, 4, 8], google_atp_ids: [2, 89],
      legitimate_interest_purposes: [2, 7], publisher_restrictions: [{ purpose_id: 2, restriction_type: 1, vendor_ids: [4] }],
      gvl_version: 100, tcf_policy_version: 5,
    });
    const config = await t.app.inject({ method: 'GET', url: `/widget/${tenant.account.id}/config.json` });
    expect(config.json().data.tcf).toMatchObject({ cmp_id: 300, gvl_version: 100 });
    // Only the fields sent change.
    const partial = await patch({ tcf: { cmp_version: 4 } });
    expect(partial.body.data.tcf).toEqual({ ...ENABLED, publisher_country_code: 'DE', cmp_version: 4 });
  });

  it('answers the vendor list cut to the account, in GVL v3 form that the IAB library takes', async () => {
    const res = await vendors();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const json = res.json();
    expect(Object.keys(json.vendors)).toEqual(['1', '4', '8']);
    expect(json.vendors['4']).toEqual(LIST.vendors['4']);
    expect(json).toMatchObject({ vendorListVersion: 100, tcfPolicyVersion: 5, gvlSpecificationVersion: 3, lastUpdated: LIST.lastUpdated });
    expect(json.purposes).toEqual(LIST.purposes);
    expect(json.stacks).toEqual(LIST.stacks);
    const gvl = new GVL(json);
    await gvl.readyPromise;
    expect(gvl.vendorListVersion).toBe(100);
    expect(Object.keys(gvl.vendors).map(Number)).toEqual([1, 4, 8]);
    expect(gvl.purposes[1].name).toBe(LIST.purposes['1'].name);
  });

  it('translates the declarations for a loaded language (or its primary one), English otherwise', async () => {
    const de = await vendors(tenant.account.id, '?lang=de-AT');
    expect(de.headers['content-language']).toBe('de');
    const json = de.json();
    for (const key of ['purposes', 'specialPurposes', 'features', 'specialFeatures', 'dataCategories']) {
      for (const [id, item] of Object.entries<{ name: string; description: string }>(GERMAN[key])) {
        expect(json[key][id]).toMatchObject({ id: Number(id), name: item.name, description: item.description });
      }
    }
    // A stack keeps its purposes, takes the translated words.
    expect(json.stacks['3']).toEqual({ ...LIST.stacks['3'], name: GERMAN.stacks['3'].name, description: GERMAN.stacks['3'].description });
    expect(json.vendors).toEqual((await vendors()).json().vendors);
    const fr = await vendors(tenant.account.id, '?lang=fr');
    expect(fr.headers['content-language']).toBe('en');
    expect(fr.json().purposes).toEqual(LIST.purposes);
  });

  it('is cacheable: an ETag that changes with the vendors, 304 on If-None-Match, compressed on request', async () => {
    const first = await vendors();
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"/);
    expect(first.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect((await vendors(tenant.account.id, '', { 'if-none-match': etag })).statusCode).toBe(304);
    const gz = await vendors(tenant.account.id, '', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toEqual(first.json());
    expect((await vendors(tenant.account.id, '?lang=de')).headers.etag).not.toBe(etag);
    expect((await patch({ tcf: { vendor_ids: [1, 4, 8, 25] } })).status).toBe(200);
    const changed = await vendors();
    expect(changed.headers.etag).not.toBe(etag);
    expect(Object.keys(changed.json().vendors)).toEqual(['1', '4', '8', '25']);
    expect((await vendors(tenant.account.id, '', { 'if-none-match': etag })).statusCode).toBe(200);
  });

  it('is not found for an account without TCF, the same as for an unknown account, and never another tenant\'s', async () => {
    const unknown = await vendors('0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b');
    const off = await vendors(other.account.id);
    expect(unknown.statusCode).toBe(404);
    expect(off.statusCode).toBe(404);
    expect(off.body).toBe(unknown.body);
    // The other tenant turns TCF on with other vendors: each account answers its own.
    const res = await patch({ tcf: { enabled: true, cmp_id: 301, vendor_ids: [2, 10] } }, other.tokens.admin);
    expect(res.status).toBe(200);
    expect(Object.keys((await vendors(other.account.id)).json().vendors)).toEqual(['2', '10']);
    expect(Object.keys((await vendors()).json().vendors)).toEqual(['1', '4', '8', '25']);
    // A foreign page is refused, as on the other widget routes.
    expect((await vendors(tenant.account.id, '', { origin: 'https://elsewhere.example' })).statusCode).toBe(403);
  });

  it('null turns TCF off and resets every setting', async () => {
    const res = await patch({ tcf: null });
    expect(res.status).toBe(200);
    expect(res.body.data.tcf).toMatchObject({ enabled: false, cmp_id: null, vendor_ids: [], google_atp_ids: [] });
    expect(embedded((await script()).body)).not.toHaveProperty('tcf');
    expect((await vendors()).statusCode).toBe(404);
  });
});

describe('the vendor list in force, for the dashboard', () => {
  it('answers its version and vendors to any member, and null where none is loaded', async () => {
    const res = await call(t.app, 'GET', '/api/v1/tcf/vendor-list', { token: tenant.tokens.member });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ version: 100, tcf_policy_version: 5, last_updated: LIST.lastUpdated, languages: ['de'] });
    // The deleted vendor 27 is not offered.
    expect(res.body.data.vendors).toEqual([1, 2, 4, 8, 10, 25].map((id) => ({ id, name: LIST.vendors[id].name })));
    const none = await call(bare.app, 'GET', '/api/v1/tcf/vendor-list', { token: bareTenant.tokens.member });
    expect(none).toMatchObject({ status: 200, body: { data: null } });
  });
});
