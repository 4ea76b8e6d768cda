/**
 * The cited registry, the relabelled Open Cookie Database, the vendor fallbacks and the matching of
 * an account's categories by meaning.
 */
import { describe, expect, it } from 'vitest';
import { Classifier, loadClassifier } from '../../src/ai/classifier/classifier.ts';
import { STANDARD_CATEGORIES } from '../../src/ai/knowledge/categories.ts';
import { exceptionFor, necessaryRule } from '../../src/ai/knowledge/convention.ts';
import { factsFromOpenCookieDatabase, Knowledge } from '../../src/ai/knowledge/knowledge.ts';
import { OCD_PLATFORM_PURPOSES, relabelOpenCookieDatabase } from '../../src/ai/knowledge/ocd-relabel.ts';
import { compilePattern, isStandardCategory, loadRegistryVendors, Registry, registryEntries, type RegistryVendor } from '../../src/ai/knowledge/registry.ts';
import { loadOpenCookieDatabase } from '../../src/ai/knowledge/sources.ts';
import { meaningScores, servesStandard } from '../../src/ai/knowledge/category-meaning.ts';
import type { CategoryRow } from '../../src/db/schema.ts';

const vendors = loadRegistryVendors();
const entries = registryEntries(vendors);
const classifier = loadClassifier();

describe('the registry', () => {
  it('cites, categorises and describes every entry, and every pattern compiles and matches a name', () => {
    expect(entries.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const entry of entries) {
      const where = `${entry.vendor} ${entry.pattern}`;
      if (!/^https:\/\/[^\s/]+\.[^\s/]+\/\S*$/.test(entry.url)) problems.push(`${where}: no documentation URL`);
      if (!/^20\d\d-\d\d-\d\d$/.test(entry.read) || Number.isNaN(Date.parse(entry.read)) || Date.parse(entry.read) > Date.now()) problems.push(`${where}: no date read`);
      if (!isStandardCategory(entry.category)) problems.push(`${where}: category ${String(entry.category)}`);
      if (entry.purpose.trim().length < 10 || entry.purpose.length > 200) problems.push(`${where}: purpose missing or too long`);
      if (entry.pattern.trim() !== entry.pattern || entry.pattern.replace(/\*/g, '') === '') problems.push(`${where}: pattern`);
      let regex: RegExp | undefined;
      try {
        regex = new RegExp(entry.regex.source);
      } catch {
        problems.push(`${where}: pattern does not compile`);
      }
      if (regex && !regex.test(entry.pattern.replace(/\*/g, 'X1'))) problems.push(`${where}: pattern does not match its own name`);
    }
    expect(problems).toEqual([]);
  });

  it('names each vendor once, with a kind, a default category and at least one source', () => {
    const names = vendors.map((vendor) => vendor.vendor);
    expect(names.length).toBe(new Set(names).size);
    for (const vendor of vendors) {
      expect(['vendor', 'framework']).toContain(vendor.kind);
      expect(STANDARD_CATEGORIES).toContain(vendor.category);
      expect(vendor.sources.length).toBeGreaterThan(0);
      for (const [pattern, , , source] of vendor.cookies) expect(vendor.sources[source ?? 0], `${vendor.vendor} ${pattern}`).toBeDefined();
      const patterns = vendor.cookies.map(([pattern]) => pattern);
      expect(patterns.length, vendor.vendor).toBe(new Set(patterns).size);
    }
  });

  it('answers every category of the convention', () => {
    for (const category of STANDARD_CATEGORIES) expect(entries.some((entry) => entry.category === category), category).toBe(true);
  });

  it('matches a pattern anchored only at its end only when that end is distinctive', () => {
    const registry = new Registry([
      { ...fake[0], cookies: [['*_key', 'necessary', 'Lets a visitor back into a protected page'], ['*_password', 'functional', 'Password of a protected video'], ['*_acr_replay_id', 'analytics', 'Replay id of Acme Replay, per site']] },
    ]);
    expect(registry.match('ps_partner_key')).toBeUndefined();
    expect(registry.match('ilance_password')).toBeUndefined();
    expect(registry.match('*_password')?.entry.pattern).toBe('*_password');
    expect(registry.match('shop_acr_replay_id')?.entry.pattern).toBe('*_acr_replay_id');
  });

  it('matches a name in another letter case only when it is not short', () => {
    const registry = new Registry([
      { ...fake[0], cookies: [['SID', 'functional', 'Sign-in security of an embedded widget'], ['AcmeVisitor', 'analytics', 'Visitor id of Acme Analytics']] },
    ]);
    expect(registry.match('SID')?.how).toBe('exact name');
    expect(registry.match('sid')).toBeUndefined();
    expect(registry.match('acmevisitor')).toMatchObject({ how: 'name, ignoring case', entry: { pattern: 'AcmeVisitor' } });
  });

  it('turns * into "any run of characters" and takes everything else literally', () => {
    expect(compilePattern('_ga_*').test('_ga_ABC123')).toBe(true);
    expect(compilePattern('_ga_*').test('_gax')).toBe(false);
    expect(compilePattern('a.b(c)*').test('a.b(c)1')).toBe(true);
    expect(compilePattern('a.b(c)*').test('axb(c)1')).toBe(false);
  });

  it('is checked before the Open Cookie Database, and tells where its answer comes from', () => {
    const result = classifier.classify({ name: '__hs_opt_out', domain: 'www.shop.example' });
    expect(result.category).toMatchObject({ value: 'necessary', confidence: 0.98 });
    expect(result.category?.source).toMatch(/^registry: exact name "__hs_opt_out" \(HubSpot; https:\/\/knowledge\.hubspot\.com\/\S+, read \d{4}-\d\d-\d\d\)$/);
    expect(result.companyName?.value).toBe('HubSpot');
  });

  it("takes a framework's name as the framework's only on a domain that is not a known vendor's", () => {
    expect(classifier.classify({ name: 'csrftoken', domain: 'www.shop.example' }).companyName?.value).toBe('Django');
    const onPinterest = classifier.classify({ name: 'csrftoken', domain: 'www.pinterest.com' });
    expect(onPinterest.companyName?.value).toBe('Pinterest');
    expect(onPinterest.category?.value ?? 'undecided').not.toBe('necessary');
  });

  it("lets no vendor's pattern take a consent name under it: the convention decides those", () => {
    expect(classifier.classify({ name: 'wm-tour-state', domain: 'www.shop.example' }).category?.source).toMatch(/WalkMe/);
    expect(classifier.classify({ name: 'wm-consent', domain: 'www.shop.example' }).category).toMatchObject({ value: 'necessary', source: 'convention: a consent or opt-out name is necessary' });
  });
});

const fake: RegistryVendor[] = [
  {
    vendor: 'Acme Replay', kind: 'vendor', category: 'analytics', prefixes: ['_acr'], domains: ['acme-replay.example'],
    sources: [{ url: 'https://docs.acme-replay.example/cookies', read: '2026-11-23' }],
    cookies: [['_acr_id', 'analytics', 'Keeps the visitor id of Acme Replay']],
  },
  {
    vendor: 'Shopframe', kind: 'framework', category: 'functional', prefixes: ['shopframe_'], domains: [],
    sources: [{ url: 'https://docs.shopframe.example/cookies', read: '2026-11-23' }],
    cookies: [['shopframe_cart', 'functional', 'Keeps the cart of a Shopframe shop']],
  },
];

describe('fallbacks by vendor', () => {
  const small = Classifier.build(new Knowledge([], []), [], { modelThreshold: 0.99 }, new Registry(fake));
  const vendor = (name: string, category: RegistryVendor['category'], prefixes: string[], cookies: RegistryVendor['cookies']): RegistryVendor => ({
    vendor: name, kind: 'vendor', category, prefixes, domains: [], sources: [{ url: `https://docs.${name.toLowerCase()}.example/`, read: '2026-11-23' }], cookies,
  });

  it('gives an unlisted name with a vendor\'s prefix, or on its domain, the vendor\'s category', () => {
    expect(small.classify({ name: '_acr_sampling' }).category).toMatchObject({ value: 'analytics', source: 'registry vendor: prefix "_acr" (Acme Replay)' });
    expect(small.classify({ name: 'zz9', domain: 'cdn.acme-replay.example' }).category)
      .toMatchObject({ value: 'analytics', source: 'registry vendor: domain cdn.acme-replay.example (Acme Replay)' });
    expect(small.classify({ name: 'zz9', domain: 'www.shop.example' }).category).toBeUndefined();
  });

  it('keeps the fixed exceptions: consent always necessary, sessions only for frameworks, choices preferences', () => {
    expect(small.classify({ name: '_acr_consent' }).category?.value).toBe('necessary');
    expect(small.classify({ name: '_acr_session' }).category?.value).toBe('analytics');
    expect(small.classify({ name: 'shopframe_session' }).category?.value).toBe('necessary');
    expect(small.classify({ name: 'shopframe_csrf' }).category?.value).toBe('necessary');
    expect(small.classify({ name: 'shopframe_currency' }).category?.value).toBe('preferences');
    expect(small.classify({ name: 'shopframe_recent' }).category?.value).toBe('functional');
    expect(exceptionFor('site_lang', false)).toEqual({ category: 'preferences', rule: 'preference' });
    expect(exceptionFor('tracker_visits', false)).toBeUndefined();
  });

  it('takes no prefix shorter than four characters, nor one another vendor of another purpose uses', () => {
    const registry = new Registry([
      vendor('Blockads', 'marketing', ['BT_', 'bkads_'], [['bkads_id', 'marketing', 'Visitor id of the Blockads network']]),
      vendor('Tracklytics', 'analytics', ['tly_'], [['tly_id', 'analytics', 'Visitor id of Tracklytics analytics']]),
      vendor('Segmentish', 'marketing', [], [['tly_traits', 'marketing', 'Traits a CRM keeps under the same prefix']]),
    ]);
    expect(registry.vendorByPrefix('BT_visit')).toBeUndefined();
    expect(registry.vendorByPrefix('bkads_seen')?.vendor.vendor).toBe('Blockads');
    expect(registry.vendorByPrefix('tly_visit')).toBeUndefined();
  });

  it('only guesses a vendor\'s default for a vendor whose listed names are of several purposes', () => {
    const mixed = vendor('Playerco', 'marketing', ['plyr_'], [
      ['plyr_ads', 'marketing', 'Ad slots the Playerco player fills'],
      ['plyr_seen', 'functional', 'Videos of the Playerco player already seen'],
      ['plyr_chapters', 'functional', 'Chapters of the Playerco player already opened'],
    ]);
    const result = Classifier.build(new Knowledge([], []), [], { modelThreshold: Infinity }, new Registry([mixed])).classify({ name: 'plyr_tab_count' });
    expect(result.category).toBeUndefined();
    expect(result.guess).toMatchObject({ value: 'marketing', source: expect.stringMatching(/^registry vendor: prefix "plyr_" \(Playerco\); uncertain: /) });
  });
});

describe('the Open Cookie Database, relabelled', () => {
  it('makes a Functional row necessary only when a rule agrees, and certain only when its name says a feature', () => {
    expect(relabelOpenCookieDatabase('SomeWidget', 'Functional', 'widget_open')).toEqual({ category: 'functional', rule: 'optional feature', uncertain: 'a Functional row labelled only by its platform' });
    expect(relabelOpenCookieDatabase('SomeChat', 'Functional', 'chat_widget_open')).toEqual({ category: 'functional', rule: 'feature' });
    expect(relabelOpenCookieDatabase('SomeShop', 'Functional', 'shop_session')).toEqual({ category: 'necessary', rule: 'session' });
    expect(relabelOpenCookieDatabase('SomeShop', 'Functional', 'XSRF-TOKEN')).toEqual({ category: 'necessary', rule: 'csrf' });
    expect(relabelOpenCookieDatabase('Amazon Web Services', 'Functional', 'AWSALB')).toMatchObject({ category: 'necessary' });
    expect(relabelOpenCookieDatabase('Cookiebot', 'Functional', 'CookieConsent')).toEqual({ category: 'necessary', rule: 'consent' });
    expect(relabelOpenCookieDatabase('SomeShop', 'Functional', 'shop_language')).toEqual({ category: 'preferences', rule: 'preference' });
  });

  it('follows the vendor\'s purpose where the database differs: replay is analytics, CRM tracking marketing, opt-outs necessary', () => {
    expect(relabelOpenCookieDatabase('Hotjar', 'Functional', '_hjSession_')).toMatchObject({ category: 'analytics' });
    expect(relabelOpenCookieDatabase('Marketo', 'Analytics', '_mkto_trk')).toMatchObject({ category: 'marketing' });
    expect(relabelOpenCookieDatabase('Matomo', 'Analytics', 'mtm_consent')).toEqual({ category: 'necessary', rule: 'consent' });
    expect(relabelOpenCookieDatabase('Facebook', 'Marketing', '_fbp')).toEqual({ category: 'marketing', rule: undefined });
  });

  it('leaves a label uncertain when only a platform default gives it, or when the name says otherwise', () => {
    expect(relabelOpenCookieDatabase('WordPress', 'Functional', 'wp-saving-post')).toMatchObject({ category: 'functional', uncertain: 'a Functional row labelled only by its platform' });
    expect(relabelOpenCookieDatabase('Hotjar', 'Functional', '_hjSession_')).toMatchObject({ category: 'analytics', uncertain: 'a Functional row labelled only by its platform' });
    expect(relabelOpenCookieDatabase('Instagram', 'Marketing', 'sessionid')).toEqual({ category: 'marketing', rule: 'session name in a marketing row', uncertain: 'the name says session, the database marketing' });
    expect(relabelOpenCookieDatabase('Google AdSense', 'Security', '__eoi')).toMatchObject({ category: 'marketing', uncertain: 'a tracking platform\'s own security cookie' });
    expect(relabelOpenCookieDatabase('Cloudflare', 'Functional', '__cf_bm')).toEqual({ category: 'necessary', rule: 'protection' });
    expect(relabelOpenCookieDatabase('Akamai Botmanager', 'Functional', '_abck')).toEqual({ category: 'necessary', rule: 'protection' });
    expect(relabelOpenCookieDatabase('Lightbox CDN', 'Functional', 'TiPMix')).toEqual({ category: 'necessary', rule: 'load balancer' });
    expect(relabelOpenCookieDatabase('PHP.net', 'Functional', 'PHPSESSID')).toEqual({ category: 'necessary', rule: 'session' });
  });

  it('gives a third party\'s own sign-in or session row the category of its embed, not necessary', () => {
    expect(relabelOpenCookieDatabase('Youtube', 'Functional', 'LOGIN_INFO', 'youtube.com (3rd party)')).toEqual({ category: 'functional', rule: 'a third party\'s own authentication cookie' });
    expect(relabelOpenCookieDatabase('Youtube', 'Functional', 'LOGIN_INFO', 'youtube.com')).toEqual({ category: 'necessary', rule: 'authentication' });
    expect(relabelOpenCookieDatabase('Cloudflare', 'Functional', '__cf_bm', 'cloudflare.com (3rd party)')).toEqual({ category: 'necessary', rule: 'protection' });
  });

  it('leaves no more than a small share of its Functional rows necessary, and covers its largest platforms', () => {
    const rows = loadOpenCookieDatabase();
    const functional = rows.filter((row) => row.category === 'Functional');
    const necessary = functional.filter((row) => relabelOpenCookieDatabase(row.platform, row.category, row.cookie)?.category === 'necessary');
    expect(necessary.length / functional.length).toBeLessThan(0.5);
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.platform, (counts.get(row.platform) ?? 0) + 1);
    const largest = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 150).map(([platform]) => platform);
    expect(largest.filter((platform) => !(platform in OCD_PLATFORM_PURPOSES))).toEqual([]);
    // Every platform with a Functional row has a purpose: none is left to the bare default.
    expect([...new Set(functional.map((row) => row.platform.trim()))].filter((platform) => !(platform in OCD_PLATFORM_PURPOSES))).toEqual([]);
    expect(factsFromOpenCookieDatabase(rows).some((fact) => fact.category === 'functional')).toBe(true);
  });

  it('reads names through the rules', () => {
    expect(necessaryRule('PHPSESSID')).toBe('session');
    expect(necessaryRule('csrftoken')).toBe('csrf');
    expect(necessaryRule('OptanonConsent')).toBe('consent');
    expect(necessaryRule('_fbp')).toBeUndefined();
    for (const name of ['_vis_opt_out', 'amplitude_optOut', 'matomo_ignore', '__hs_do_not_track', 'li_gpc', 'usprivacy', '__cmpconsentx', 'euconsent-v2']) {
      expect(necessaryRule(name), name).toBe('consent');
    }
    // A campaign (`cmp`), an ad cookie in capitals, and GDPR or privacy flags of ad cookies are not consent choices.
    for (const name of ['cly_cmp_id', 'CMPS', '__gsync_gdpr', 'id5id_privacy']) expect(necessaryRule(name), name).toBeUndefined();
  });
});

describe('an account\'s categories, by meaning', () => {
  const row = (name: string, fields: Partial<CategoryRow> = {}): CategoryRow => ({
    id: name, account_id: 'a', name, slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), description: '', required: false,
    published: true, sale_or_sharing: false, default_language: 'en', translations: {}, created_at: new Date(), updated_at: new Date(), ...fields,
  });

  it('reads slugs, names and descriptions in several languages', () => {
    expect(servesStandard(row('Marketing & Ads'), 'marketing')).toBeGreaterThan(0);
    expect(servesStandard(row('Statistiques'), 'analytics')).toBeGreaterThan(0);
    expect(servesStandard(row('Préférences'), 'preferences')).toBeGreaterThan(0);
    expect(servesStandard(row('Werbung'), 'marketing')).toBeGreaterThan(0);
    expect(servesStandard(row('Comfort', { description: 'Funktionale Cookies für Chat und Videos' }), 'functional')).toBeGreaterThan(0);
    expect(servesStandard(row('Functional & Preferences'), 'preferences')).toBeGreaterThan(0);
    expect(servesStandard(row('Functional & Preferences'), 'functional')).toBeGreaterThan(0);
  });

  it('never takes a negated word, nor an optional category into a required one', () => {
    expect(meaningScores(row('Non-essential')).necessary).toBe(0);
    expect(servesStandard(row('Essential & statistics', { required: true }), 'analytics')).toBe(0);
    expect(servesStandard(row('Marketing'), 'analytics')).toBe(0);
    expect(servesStandard(row('Other'), 'necessary')).toBe(0);
  });
});
