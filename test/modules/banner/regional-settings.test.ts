import { describe, expect, it } from 'vitest';
import { EU_MEMBER_STATES } from '../../../src/geo/regions.ts';
import { US_PRIVACY_LAWS, usPrivacyStates } from '../../../src/geo/us-privacy-laws.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant } from '../../helpers/tenants.ts';

const { t, tenants: [tenant] } = fileApp({ env: { WIDGET_RATE_LIMIT_PER_MIN: '10000', RATE_LIMIT_MAX: '10000' }, tenants: ['Regional'] });

const api = (method: string, url: string, body?: unknown, token = tenant.tokens.admin) => call(t.app, method, url, { token, body });
const patch = (banner: unknown) => api('PATCH', '/api/v1/banner', { banner });
const settings = async () => (await api('GET', '/api/v1/banner')).body.data;
const script = (accountId = tenant.account.id) => t.app.inject({ method: 'GET', url: `/widget/${accountId}.js` });

/** The configuration embedded in a script. */
function embedded(body: string) {
  const json = /\}\)\((\{.*\})\);\n$/s.exec(body)?.[1];
  if (!json) throw new Error('no configuration in the script');
  return JSON.parse(json);
}

const SHIPPED_RULES = [{ regions: ['EEA', 'GB', 'CH'], mode: 'opt-in' }, { regions: ['US-PRIVACY-STATES'], mode: 'opt-out' }];
const OFF = { ads_data_redaction: false, url_passthrough: false };

describe('the regional rules of the banner settings', () => {
  it('answers the shipped defaults until the account sets its own, and embeds them expanded in the script', async () => {
    const data = await settings();
    expect(data).toMatchObject({ regional_rules: SHIPPED_RULES, default_mode: 'opt-in', regional_rules_customised: false, consent_mode: OFF });
    const { regions } = embedded((await script()).body);
    const eea = regions.rules[0].regions;
    // The groups are gone: countries and subdivisions only, each once.
    expect(eea).toEqual(expect.arrayContaining([...EU_MEMBER_STATES, 'IS', 'LI', 'NO', 'GB', 'CH', 'AX', 'RE']));
    expect(eea).not.toContain('EEA');
    expect(new Set(eea).size).toBe(eea.length);
    expect(regions.rules[1]).toEqual({ regions: usPrivacyStates(new Date()), mode: 'opt-out' });
    expect(regions.rules[1].regions).toContain('US-CA');
    // A law whose date is still to come is not in the list yet.
    const today = new Date().toISOString().slice(0, 10);
    for (const law of US_PRIVACY_LAWS) expect(regions.rules[1].regions.includes(law.region), law.region).toBe(law.effective <= today);
    expect(regions).toMatchObject({ default_mode: 'opt-in', consent_mode: OFF });
  });

  it('takes rules in any case, keeps them canonical, and changes the script but not the revision', async () => {
    const before = await script();
    const revision = (await settings()).revision;
    const res = await patch({
      regional_rules: [{ regions: [' de ', 'us-ca', 'eu', 'DE'], mode: 'notice' }, { regions: ['US', 'US-PR'], mode: 'none' }],
      default_mode: 'opt-out',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      regional_rules: [{ regions: ['DE', 'US-CA', 'EU'], mode: 'notice' }, { regions: ['US', 'PR'], mode: 'none' }],
      default_mode: 'opt-out',
      regional_rules_customised: true,
      revision,
    });
    expect(await settings()).toEqual(res.body.data);
    const after = await script();
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const config = embedded(after.body);
    expect(config.revision).toBe(revision);
    expect(config.regions.rules[0].regions.slice(0, 2)).toEqual(['DE', 'US-CA']);
    expect(config.regions.rules[0].regions).toEqual(expect.arrayContaining([...EU_MEMBER_STATES, 'GF', 'MF']));
    expect(config.regions.rules[0].regions).not.toContain('NO');
    expect(config.regions.rules[1]).toEqual({ regions: ['US', 'PR'], mode: 'none' });
    expect(config.regions.default_mode).toBe('opt-out');
    // config.json carries the same.
    expect((await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`)).body.data.regions).toEqual(config.regions);
  });

  it('brings back the shipped defaults with null, and only what is sent changes', async () => {
    await patch({ regional_rules: [{ regions: ['AU'], mode: 'none' }], default_mode: 'notice' });
    let data = (await patch({ regional_rules: null })).body.data;
    expect(data).toMatchObject({ regional_rules: SHIPPED_RULES, regional_rules_customised: false, default_mode: 'notice' });
    data = (await patch({ layout: 'bar' })).body.data;
    expect(data).toMatchObject({ regional_rules: SHIPPED_RULES, default_mode: 'notice', layout: 'bar' });
    data = (await patch({ default_mode: null })).body.data;
    expect(data).toMatchObject({ regional_rules: SHIPPED_RULES, default_mode: 'opt-in', regional_rules_customised: false });
    // An empty list is the account's own choice: no rule, the default mode everywhere.
    data = (await patch({ regional_rules: [] })).body.data;
    expect(data).toMatchObject({ regional_rules: [], regional_rules_customised: true });
    expect(embedded((await script()).body).regions.rules).toEqual([]);
    expect((await patch({ regional_rules: null })).body.data.regional_rules_customised).toBe(false);
  });

  it('refuses bad codes and modes with 422 naming them, all at once, and changes nothing', async () => {
    const before = await settings();
    const cases: [unknown, string[]][] = [
      [{ regional_rules: [{ regions: ['DE', 'XX'], mode: 'opt-in' }] }, ['Regional rules has an unknown region code: XX']],
      [{ regional_rules: [{ regions: ['UK'], mode: 'opt-in' }] }, ['Regional rules has an unknown region code: UK (did you mean GB?)']],
      [{ regional_rules: [{ regions: ['US-ZZ', 'EEA'], mode: 'maybe' }] }, [
        'Regional rules has an unknown region code: US-ZZ',
        'Regional rules has an unknown mode: maybe (one of opt-in, opt-out, notice, none)',
      ]],
      [{ regional_rules: [{ regions: [], mode: 'none' }] }, ['Regional rules has a rule without regions']],
      [{ default_mode: 'sometimes' }, ['Default mode is not a mode: sometimes (one of opt-in, opt-out, notice, none)']],
      [{ regional_rules: [{ regions: ['Mars'], mode: 'opt-in' }], default_mode: 'OPT-IN' }, [
        'Regional rules has an unknown region code: Mars',
        'Default mode is not a mode: OPT-IN (one of opt-in, opt-out, notice, none)',
      ]],
      [{ regional_rules: Array.from({ length: 51 }, () => ({ regions: ['DE'], mode: 'opt-in' })) }, ['Regional rules is too long (maximum is 50 rules)']],
      [{ regional_rules: 'EEA' }, ['Regional rules is invalid']],
      [{ regional_rules: [{ regions: 'DE', mode: 'opt-in' }] }, ['Regions is invalid']],
      [{ consent_mode: { url_passthrough: 'yes' } }, ['Url passthrough is invalid']],
    ];
    for (const [banner, messages] of cases) {
      const res = await patch(banner);
      expect([JSON.stringify(banner).slice(0, 80), res.status, res.body]).toEqual([
        JSON.stringify(banner).slice(0, 80), 422, { errors: messages.map((error) => ({ error })) },
      ]);
    }
    // A good change sent with a bad one is not saved either.
    expect((await patch({ layout: 'cloud', regional_rules: [{ regions: ['XX'], mode: 'none' }] })).status).toBe(422);
    expect(await settings()).toEqual(before);
  });

  it('merges the Consent Mode options one by one, null turning them off, and embeds them', async () => {
    expect((await patch({ consent_mode: { ads_data_redaction: true } })).body.data.consent_mode).toEqual({ ads_data_redaction: true, url_passthrough: false });
    expect((await patch({ consent_mode: { url_passthrough: true } })).body.data.consent_mode).toEqual({ ads_data_redaction: true, url_passthrough: true });
    expect(embedded((await script()).body).regions.consent_mode).toEqual({ ads_data_redaction: true, url_passthrough: true });
    expect((await patch({ consent_mode: { ads_data_redaction: false } })).body.data.consent_mode).toEqual({ ads_data_redaction: false, url_passthrough: true });
    expect((await patch({ consent_mode: null })).body.data.consent_mode).toEqual(OFF);
  });

  it('may be changed by admins only', async () => {
    const res = await api('PATCH', '/api/v1/banner', { banner: { default_mode: 'none' } }, tenant.tokens.member);
    expect(res.status).toBe(403);
    expect((await settings()).default_mode).toBe('opt-in');
  });

  it('shows in the preview without being saved, checked as a save is', async () => {
    const res = await api('POST', '/api/v1/banner/preview', { banner: { regional_rules: [{ regions: ['ca-qc'], mode: 'notice' }], default_mode: 'none' } });
    expect(res.status).toBe(200);
    expect(embedded(res.body).regions).toMatchObject({ rules: [{ regions: ['CA-QC'], mode: 'notice' }], default_mode: 'none' });
    expect(await settings()).toMatchObject({ regional_rules: SHIPPED_RULES, default_mode: 'opt-in' });
    const bad = await api('POST', '/api/v1/banner/preview', { banner: { regional_rules: [{ regions: ['QC'], mode: 'notice' }] } });
    expect(bad).toMatchObject({ status: 422, body: { errors: [{ error: 'Regional rules has an unknown region code: QC' }] } });
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await call(t.app, 'GET', '/api/v1/openapi.json')).body;
    const answered = doc.paths['/api/v1/banner'].get.responses['200'].content['application/json'].schema;
    const json = JSON.stringify(answered);
    for (const field of ['regional_rules', 'default_mode', 'regional_rules_customised', 'consent_mode', 'US-PRIVACY-STATES']) expect(json).toContain(field);
  });
});

describe('the sale_or_sharing of categories', () => {
  it('is true for the slug marketing unless said otherwise, settable on create and change, and in the script', async () => {
    const create = async (category: object) => (await api('POST', '/api/v1/categories', { category })).body.data;
    const marketing = await create({ name: 'Marketing' });
    const analytics = await create({ name: 'Analytics' });
    const ads = await create({ name: 'Ads', sale_or_sharing: true });
    const ownMarketing = await create({ name: 'Newsletter', slug: 'marketing-2' });
    expect([marketing.slug, marketing.sale_or_sharing]).toEqual(['marketing', true]);
    expect([analytics.sale_or_sharing, ads.sale_or_sharing, ownMarketing.sale_or_sharing]).toEqual([false, true, false]);
    const fresh = await createTenant(t.services, 'Sales');
    const refused = await call(t.app, 'POST', '/api/v1/categories', { token: fresh.tokens.admin, body: { category: { name: 'Marketing', sale_or_sharing: false } } });
    expect(refused.body.data.sale_or_sharing).toBe(false);

    const changed = await api('PUT', `/api/v1/categories/${analytics.id}`, { category: { sale_or_sharing: true } });
    expect(changed.body.data.sale_or_sharing).toBe(true);
    expect((await api('GET', `/api/v1/categories/${analytics.id}`)).body.data.sale_or_sharing).toBe(true);
    expect((await api('PUT', `/api/v1/categories/${marketing.id}`, { category: { sale_or_sharing: false } })).body.data.sale_or_sharing).toBe(false);
    // A rename keeps it.
    expect((await api('PUT', `/api/v1/categories/${ads.id}`, { category: { name: 'Advertising' } })).body.data.sale_or_sharing).toBe(true);
    expect((await api('PUT', `/api/v1/categories/${ads.id}`, { category: { sale_or_sharing: 'yes' } })).status).toBe(422);

    const categories = embedded((await script()).body).categories;
    const bySlug = Object.fromEntries(categories.map((c: { slug: string; sale_or_sharing: boolean }) => [c.slug, c.sale_or_sharing]));
    expect(bySlug).toMatchObject({ marketing: false, analytics: true, ads: true, 'marketing-2': false });
  });
});
