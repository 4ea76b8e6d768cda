import { describe, expect, it } from 'vitest';
import { Classifier, DEFAULT_CLASSIFIER_OPTIONS, loadClassifier } from '../../src/ai/classifier/classifier.ts';
import { Controllers } from '../../src/ai/classifier/controllers.ts';
import { domainFeatures, durationFeatures, nameFeatures, nameWords, placeOf, registrableDomain } from '../../src/ai/classifier/features.ts';
import { normaliseDuration } from '../../src/ai/knowledge/durations.ts';
import { normaliseHost } from '../../src/ai/knowledge/host-names.ts';
import { factsFromOpenCookieDatabase, Knowledge } from '../../src/ai/knowledge/knowledge.ts';

const classifier = loadClassifier();

describe('durations', () => {
  it.each([
    ['Session', 'session'], ['End of session (browser)', 'session'], ['Seesion', 'session'],
    ['1 Year', '1 year'], ['365 days', '1 year'], ['3650 days', '10 years'], ['24 hours', '1 day'],
    ['1440 Minutes', '1 day'], ['30 Days', '30 days'], ['13 months', '13 months'], ['12 months', '1 year'],
    ['forever', 'persistent'], ['2 weeks', '2 weeks'], ['1 month', '1 month'],
  ])('%s → %s', (raw, expected) => expect(normaliseDuration(raw)).toBe(expected));

  it.each(['Unknown', 'varies', '', '0 days', '2 years after last activity', 'Local Storage'])('knows nothing from "%s"', (raw) => {
    expect(normaliseDuration(raw)).toBeUndefined();
  });
});

describe('names and hosts', () => {
  it('splits names into words, collapsing numbers and ids', () => {
    expect(nameWords('_hjSessionUser_123')).toEqual(['hj', 'session', 'user', '#']);
    expect(nameWords('AMCV_8F99160E571FC0427F000101')).toEqual(['amcv', '<id>']);
  });

  it('reads hosts from what cookie databases write', () => {
    expect(normaliseHost('.linkedin.com')).toBe('linkedin.com');
    expect(normaliseHost('cookiebot.com (3rd party)')).toBe('cookiebot.com');
    expect(normaliseHost('https://www.Example.com/path')).toBe('www.example.com');
    expect(normaliseHost('')).toBe('');
    expect(registrableDomain('a.b.example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('stats.g.doubleclick.net')).toBe('doubleclick.net');
  });
});

describe('features', () => {
  it('bands the length of a name and reads the lifetime together with where the item lives', () => {
    expect(nameFeatures('_ga')).toContain('len:0');
    expect(nameFeatures('_hjSessionUser_123')).toContain('len:4');
    expect(placeOf('', undefined)).toBe('no-domain');
    expect(placeOf('example.com', undefined)).toBe('other-domain');
    expect(placeOf('doubleclick.net', { entity: 'Google/Doubleclick Ads', company: 'Google', category: 'marketing', thirdPartyCategory: 'ad' })).toBe('third-party:marketing');
    expect(durationFeatures('365 days', 'no-domain')).toEqual(['dur:1 year', 'band:year', 'band×place:year|no-domain']);
  });

  it('makes no feature of an unknown lifetime or host: which facts lack one says where they come from, not what they are for', () => {
    expect(durationFeatures('Unknown', 'other-domain')).toEqual([]);
    expect(durationFeatures(undefined, 'no-domain')).toEqual([]);
    expect(domainFeatures('', undefined)).toEqual([]);
    expect(domainFeatures('www.example.com', undefined)).toEqual(['d:example.com', 'dl:example']);
  });
});

describe('controllers of the nearest known cookies', () => {
  const facts = factsFromOpenCookieDatabase([
    { ...row('_acmeSession', 'Analytics'), dataController: 'Acme' },
    { ...row('_acmeUser', 'Analytics'), dataController: 'Acme' },
    { ...row('_acmxOther', 'Marketing'), dataController: 'Acmx' },
    { ...row('trk', 'Marketing'), dataController: 'Tracker Co', domain: '.tracker.example.com' },
    { ...row('sync', 'Marketing'), dataController: 'Sync Ltd', domain: 'ads.tracker.example.com' },
  ]);
  const controllers = new Controllers(facts);

  it('names the controller of the known names sharing the longest prefix of at least four characters', () => {
    expect(controllers.features('_acmeVisitor', '')).toEqual([['ctl:Acme', 1]]);
    expect(controllers.features('_acm', '')).toEqual([['ctl:Acme', 0.5], ['ctl:Acmx', 0.5]]);
    expect(controllers.features('_acXY', '')).toEqual([]);
  });

  it('leaves a known name out of its own description, as an unlisted name would be', () => {
    expect(controllers.features('_acmxOther', '')).toEqual([['ctl:Acme', 1]]);
  });

  it('adds the controllers of the known cookies on the same registrable domain', () => {
    expect(controllers.features('zz', 'pixel.tracker.example.com')).toEqual([['ctl:Tracker Co', 0.5], ['ctl:Sync Ltd', 0.5]]);
    expect(controllers.features('trk', 'tracker.example.com')).toEqual([['ctl:Sync Ltd', 1]]);
  });
});

describe('the classifier', () => {
  it('decides a listed name from the Open Cookie Database, with what it knows about it', () => {
    const result = classifier.classify({ name: '_uetsid' });
    expect(result.category).toEqual({ value: 'marketing', confidence: 0.98, source: 'open-cookie-database: exact name "_uetsid" (Microsoft)' });
    expect(result.companyName?.value).toBe('Microsoft');
    expect(result.description?.value).toMatch(/Bing/);
    expect(result.duration?.value).toBe('30 minutes');
  });

  it("relabels a database name as the registry lists its siblings of one description: Google's sign-in family", () => {
    for (const name of ['APISID', 'SAPISID', 'SSID', 'SIDCC']) {
      expect(classifier.classify({ name, domain: 'www.shop.example' }).category, name).toMatchObject({ value: 'functional', source: expect.stringMatching(/^open-cookie-database: exact name ".*" \(Google\); relabelled: described as its sibling `SID`, `HSID`, which the registry lists as functional$/) });
    }
  });

  it('matches a concrete name to a listed pattern, and a wildcard item to it too', () => {
    for (const name of ['_ga_K2J4XQ9', '_ga_*']) {
      expect(classifier.classify({ name }).category).toMatchObject({ value: 'analytics', source: 'open-cookie-database: pattern "_ga_*" (Google)' });
    }
    expect(classifier.classify({ name: '_hjSessionUser_1234' }).companyName?.value).toBe('Hotjar');
  });

  it('reads a wildcard item through the listed names it covers', () => {
    const result = classifier.classify({ name: '__utm*' });
    expect(result.category?.value).toBe('analytics');
    expect(result.category?.source).toMatch(/^registry: listed names covered by the wildcard "__utm\*" \(Google Analytics; https:/);
    // Names the registry does not cover are read through the Open Cookie Database's listed names.
    expect(classifier.classify({ name: '_ce.clock*' }).category).toMatchObject({ value: 'analytics', source: expect.stringMatching(/^open-cookie-database: 2 listed names matching "_ce.clock\*" \(Crazy Egg\)$/) });
  });

  it('names the company behind a third-party domain even when it cannot decide the category', () => {
    const result = classifier.classify({ name: 'x9', domain: 'cdn.jsdelivr.net' });
    expect(result.category).toBeUndefined();
    expect(result.companyName).toMatchObject({ value: 'JSDelivr CDN', source: 'third-party-web: JSDelivr CDN' });
  });

  it('declines a name it knows nothing about, keeping its guess', () => {
    const result = classifier.classify({ name: 'zq' });
    expect(result.category).toBeUndefined();
    expect(result.guess?.source).toMatch(/^model: /);
    expect(result.guess!.confidence).toBeLessThan(DEFAULT_CLASSIFIER_OPTIONS.modelThreshold);
  });

  it('decides an unlisted consent or opt-out name as necessary, whoever set it', () => {
    for (const name of ['_acme_opt_out', 'acme_do_not_track', 'acme_gpc', 'trk_ignore', 'site_usprivacy']) {
      expect(classifier.classify({ name }).category, name).toMatchObject({ value: 'necessary', source: 'convention: a consent or opt-out name is necessary' });
    }
    // Before a database pattern of the vendor: Mixpanel's `mp_` names are analytics, its opt-out is not.
    expect(classifier.classify({ name: 'mp_optout_K2J4XQ9' }).category).toMatchObject({ value: 'necessary', source: expect.stringMatching(/^convention: /) });
  });

  it('decides an unlisted name of a chat, comments, a wishlist or recently viewed items as functional', () => {
    for (const name of ['acme_chat_state', 'xyzLiveChatOpen', 'blog_comments_author', 'shop-wishlist', 'acme_recently_viewed']) {
      expect(classifier.classify({ name }).category, name).toMatchObject({ value: 'functional', source: expect.stringMatching(/^convention: a name of a chat/) });
    }
    // The convention's necessary and preference words come first: a chat's session or language is not a feature name.
    for (const name of ['chat_session', 'chat_lang']) expect(classifier.classify({ name }).category?.value, name).not.toBe('functional');
  });

  it('reads generic words after a short abbreviation as the site\'s own, deciding only where the model agrees', () => {
    const domain = 'www.hydeparkpharmacy.example';
    for (const [name, value] of [['cc_session', 'necessary'], ['np_access_token', 'necessary'], ['if_csrf', 'necessary'], ['hxp_cart', 'necessary'], ['kx_lang', 'preferences']]) {
      expect(classifier.classify({ name, domain }).category, name).toMatchObject({ value, source: expect.stringMatching(/^convention: the site's own .* after the abbreviation "[a-z]+"; the model agrees$/i) });
    }
    // The model reads it otherwise: the model's guess, for a person to decide.
    const disputed = classifier.classify({ name: 'ls_sess', domain });
    expect(disputed.category).toBeUndefined();
    expect(disputed.guess?.source).toMatch(/^model: /);
    // Not after a word of tracking, and not a bare id (a vendor's visitor id as often as a session).
    // Nor the person after one: a vendor's visitor id (`ajs_user_id`), whatever the model says.
    for (const name of ['trk_session', 'ads_session', 'zq_sid', 'zq_user_id', 'zq_user']) {
      expect(classifier.classify({ name, domain }).guess?.source ?? '', name).not.toMatch(/site's own/);
    }
  });

  it("decides a site's own unlisted name from its words: generic words, or the site's own name", () => {
    const cases: Array<[string, string, string]> = [
      ['session_id', 'www.shop.example', 'necessary'],
      ['shoppingCartId', 'www.shop.example', 'necessary'],
      ['dan_jwt', 'dan.example', 'necessary'],
      ['sportgene_session', 'sportgene.co.uk', 'necessary'],
      ['.GymHut.Antiforgery', 'gymhut.co.uk', 'necessary'],
      ['selectedDisplayCurrency', 'www.shop.example', 'preferences'],
      ['sportgene_pref_lang', 'sportgene.co.uk', 'preferences'],
      // The site's name written with separators, or its initials; a version says nothing.
      ['digital-florists-session', 'digitalflorists.com', 'necessary'],
      ['hpp_cart_v1', 'hydeparkpharmacy.co.uk', 'necessary'],
      // The interface as the visitor left it.
      ['sidebar_collapsed', 'app.example', 'preferences'],
      ['toolbar_hint', 'app.example', 'preferences'],
      ['appearance', 'app.example', 'preferences'],
      // What the visitor gathered: an optional feature.
      ['saved_searches', 'homes.example', 'functional'],
      ['compare_list', 'homes.example', 'functional'],
      // Initials with a digit, and one word of a hyphenated host label.
      ['p4t_session', 'park4travels.co.uk', 'necessary'],
      ['saved_properties', 'www.philippine-properties.com', 'functional'],
      ['ispSessionId', 'www.the-isp.org', 'necessary'],
      ['user_preferences', 'app.example', 'preferences'],
      // Digits glued to a word say nothing either.
      ['sessionid5152', 'careers.example', 'necessary'],
      ['access_token', 'www.shop.example', 'necessary'],
      // An OAuth sign-in's state, and the site's own check that cookies are kept.
      ['oauth_state', 'app.example', 'necessary'],
      ['CookieCheck', 'library.example', 'necessary'],
      // A password, its hash, a verification's or a refresh token; the signed-in person, unless a choice of theirs.
      ['member_hash', 'www.shop.example', 'necessary'],
      ['verification_token', 'notice.example.gov', 'necessary'],
      ['refresh-token', 'app.example', 'necessary'],
      ['userId', 'portal.example', 'necessary'],
      ['fixaill_customer', 'fixaill.com', 'necessary'],
      ['client_timezone', 'app.example', 'preferences'],
      // Plain words that name no vendor.
      ['session_data', 'app.example', 'necessary'],
      ['system_sessionId', 'app.example', 'necessary'],
    ];
    for (const [name, domain, value] of cases) {
      expect(classifier.classify({ name, domain }).category, name).toMatchObject({ value, source: expect.stringMatching(/^convention: the site's own /) });
    }
    // A brand that is not the site's is some vendor's: its "session" may be its own measurement.
    // `_ep_sess` is X's on example.com.
    for (const name of ['acmetrk_session', 'giscus-session', 'udm_session_rad_edge', '_ep_sess', 'acmetrk_testcookie', 'client_token']) {
      const result = classifier.classify({ name, domain: name === '_ep_sess' ? 'example.com' : 'www.hydeparkpharmacy.example' });
      expect(result.category?.source ?? '', name).not.toMatch(/site's own/);
    }
    // The same name on a known third party's domain is that party's.
    expect(classifier.classify({ name: 'session_id', domain: 'cdn.jsdelivr.net' }).category?.source ?? '').not.toMatch(/site's own/);
    // A database listing the name with a label it is unsure of gives way to the site's own words.
    expect(classifier.classify({ name: 'sid', domain: 'e-shop.example' }).category).toMatchObject({ value: 'necessary', source: expect.stringMatching(/site's own session/) });
  });

  it('decides an unlisted name by words that say a choice, a consent or an ad click id, whoever set it', () => {
    for (const name of ['WEBAPP_LANG', 'acmeWidgetTheme', 'zzshop_display_currency', 'acme-player-mute', 'acme_localization', 'site-localisation']) {
      expect(classifier.classify({ name, domain: 'www.shop.example' }).category, name).toMatchObject({ value: 'preferences', source: expect.stringMatching(/^convention: a name of the visitor's language/) });
    }
    // A country or region is as often where the visitor was found to be; settings say too little.
    for (const name of ['acmeUserCountry', 'acme_geo_region', 'acme_settings']) {
      expect(classifier.classify({ name, domain: 'www.shop.example' }).category?.source ?? '', name).not.toMatch(/language, currency/);
    }
    // A cookie warning is the consent notice, and so is an answer opted in or out.
    for (const name of ['acme-cookie-warning-1a2b', 'optedin', 'cookie-statistics', 'cookie-non-essential']) {
      expect(classifier.classify({ name, domain: 'www.shop.example' }).category, name).toMatchObject({ value: 'necessary', source: 'convention: a consent or opt-out name is necessary' });
    }
    // An ad platform's click id is advertising, whoever keeps it.
    expect(classifier.classify({ name: 'acme_gclid_data', domain: 'www.shop.example' }).category).toMatchObject({ value: 'marketing', source: expect.stringMatching(/click id/) });
    // So is an ad pixel's browser or click id copied under the site's own name; not a word that only contains the letters.
    for (const name of ['xq_fbp', 'xq_ttp', 'xq_sc_click_id']) expect(classifier.classify({ name, domain: 'www.shop.example' }).category, name).toMatchObject({ value: 'marketing', source: expect.stringMatching(/click id/) });
    expect(classifier.classify({ name: 'xq_http_state', domain: 'www.shop.example' }).category?.source ?? '').not.toMatch(/click id/);
  });

  it("decides a dismissed message, the view, saved items, a referral code or a measurement name on the site's own domain, never as necessary; a CSRF or load-balancer name as necessary", () => {
    const domain = 'www.shop.example';
    for (const [name, value] of [['promo_banner_dismissed', 'preferences'], ['hide_location_alert', 'preferences'], ['xq.onboarding_snooze', 'preferences'], ['guide_ref', 'marketing'], ['xq.referral_code', 'marketing'], ['AffiliateID', 'marketing'], ['analytics_client_id', 'analytics'], ['homestay_visitor_id', 'analytics'], ['sound_preferences', 'preferences'], ['player_colors', 'preferences'], ['a11y-settings', 'preferences'], ['xqSaveFontSize', 'preferences'], ['xq-text-size', 'preferences'], ['hideXqPopup2', 'preferences'], ['xq_search_display_mode', 'preferences'], ['xq_filters_close', 'preferences'], ['xq_saved_looks', 'functional'], ['xq-browsing-history', 'functional'], ['xq_recent_searches', 'functional']]) {
      expect(classifier.classify({ name, domain }).category, name).toMatchObject({ value, source: expect.stringMatching(/^convention: a (dismissed message|referral|measurement|setting|view state|saved items) name on the site's own domain$/) });
    }
    // A display name is a person's, not the view; a page view is measurement, not the view.
    for (const name of ['xq_display_name', 'xq_page_view']) expect(classifier.classify({ name, domain }).category?.source ?? '', name).not.toMatch(/view state/);
    // A dismissed widget is the feature's, and a dismissal is no referral code.
    for (const name of ['acme_launcher_closed', 'xq_ref_dismissed']) expect(classifier.classify({ name, domain }).category?.source ?? '', name).not.toMatch(/site's own domain/);
    // A CSRF token with any other words is the site's forms' protection, a load balancer's word its servers': necessary.
    expect(classifier.classify({ name: '_candidateCSRF', domain }).category).toMatchObject({ value: 'necessary', source: "convention: a CSRF name on the site's own domain" });
    for (const name of ['xqbiblio-lb', 'XQSERVERID']) expect(classifier.classify({ name, domain }).category, name).toMatchObject({ value: 'necessary', source: "convention: a load balancer name on the site's own domain" });
    expect(classifier.classify({ name: '_candidateCSRF', domain: 'cdn.jsdelivr.net' }).category?.source ?? '').not.toMatch(/site's own domain/);
    // So is a session id in capitals glued to its prefix, as frameworks write theirs; a camel-case one may be a vendor's measurement.
    for (const name of ['CMSSESSID', 'XQ_BRWSESSIONID']) expect(classifier.classify({ name, domain }).category, name).toMatchObject({ value: 'necessary', source: "convention: a framework's session id name on the site's own domain" });
    expect(classifier.classify({ name: 'xqSessionId', domain }).category?.source ?? '').not.toMatch(/framework's session id/);
    // A known third party's domain, or a name with a necessary word, is not read so.
    expect(classifier.classify({ name: 'promo_banner_dismissed', domain: 'cdn.jsdelivr.net' }).category?.source ?? '').not.toMatch(/site's own domain/);
    expect(classifier.classify({ name: 'cookie_banner_dismissed', domain }).category?.value).toBe('necessary');
  });

  it("applies the embed rule to a necessary cookie on a vendor's domain, when the site's is known", () => {
    const onSite = (name: string, domain: string, site?: string) => classifier.classify({ name, domain, site }).category;
    // Cloudflare's bot check on Vimeo's domain is there for the embedded video; Zendesk's session for the chat.
    expect(onSite('__cf_bm', '.vimeo.com', 'www.shop.example')).toMatchObject({ value: 'functional', source: expect.stringMatching(/\(Cloudflare; .*; on a third party's domain, there for its functional feature \(the embed rule\)$/) });
    expect(onSite('_zendesk_session', '.zendesk.com', 'www.shop.example')?.value).toBe('functional');
    // On the site's own domain, without the site's domain, or on a necessary vendor's domain: as the registry says.
    expect(onSite('_zendesk_session', 'help.shop.example', 'www.shop.example')?.value).toBe('necessary');
    expect(onSite('_zendesk_session', '.zendesk.com')?.value).toBe('necessary');
    expect(onSite('__cf_bm', '.cloudflare.com', 'www.shop.example')?.value).toBe('necessary');
  });

  it("reads an unlisted first-party name as the vendor's whose script a scan saw write it", () => {
    const written = (setBy?: string, name = 'vid_state') => classifier.classify({ name, domain: 'www.shop.example', setBy });
    // Intercom's widget wrote it: Intercom's default, and its company.
    expect(written('https://widget.intercom.io/widget/abc')).toMatchObject({
      category: { value: 'functional', source: 'registry vendor: written by a script on widget.intercom.io (Intercom)' },
      companyName: { value: 'Intercom' },
    });
    // A vendor whose listed names have several purposes, or whose default is necessary: a guess only.
    expect(written('https://static.hotjar.com/c/hotjar-123.js?sv=6').category).toBeUndefined();
    expect(written('https://static.hotjar.com/c/hotjar-123.js?sv=6').guess?.source).toMatch(/\(Hotjar\); uncertain: /);
    expect(written('https://js.stripe.com/v3/').category).toBeUndefined();
    expect(written('https://js.stripe.com/v3/').guess?.source).toMatch(/uncertain: a necessary default is not taken from the script alone/);
    // The site's own script, a tag manager's or a CDN's says nothing of whose it is.
    for (const setBy of ['https://www.shop.example/app.js', 'https://cdn.shop.example/app.js', 'https://www.googletagmanager.com/gtm.js?id=GTM-X', 'https://cdn.jsdelivr.net/npm/x.js']) {
      expect(written(setBy).guess?.source, setBy).not.toMatch(/^registry vendor/);
    }
    // A name a third party's script wrote is not the site's own, whatever its words.
    expect(written(undefined, 'session_id').category?.source).toBe("convention: the site's own session name");
    expect(written('https://unknown-vendor.example/a.js', 'session_id').category?.source ?? '').not.toMatch(/site's own/);
  });

  it("takes a name other software also uses as the database's party's only on that party's domain", () => {
    // The database lists `locale` for Facebook (facebook.com): on a site of its own it is the site's language.
    expect(classifier.classify({ name: 'locale', domain: 'www.shop.example' }).category).toMatchObject({ value: 'preferences', source: expect.stringMatching(/site's own/) });
    const onFacebook = classifier.classify({ name: 'locale', domain: 'www.facebook.com' });
    expect(onFacebook.category?.source).toMatch(/^open-cookie-database: exact name "locale" \(Facebook\)/);
    // Where the site's own words say nothing, it is left to a person, not answered as the party's.
    const id = classifier.classify({ name: 'ID', domain: 'www.shop.example' });
    expect(id.category).toBeUndefined();
    expect(id.guess?.source).toMatch(/uncertain: a name other software also uses, listed for /);
    // Where they say something, they decide: a bare `token` is the site's sign-in.
    expect(classifier.classify({ name: 'token', domain: 'www.shop.example' }).category).toMatchObject({ value: 'necessary', source: "convention: the site's own authentication name" });
  });

  it('guesses but does not decide from a database label only a platform default gives', () => {
    const facts = factsFromOpenCookieDatabase([
      { ...row('acme_recent', 'Functional'), platform: 'Acme CMS' },
      { ...row('acme_sessid', 'Marketing'), platform: 'Acme Ads' },
      { ...row('acme_ads', 'Marketing'), platform: 'Acme Ads' },
    ]);
    expect(facts.map((fact) => Boolean(fact.uncertain))).toEqual([true, true, false]);
    const small = Classifier.build(new Knowledge(facts, []), facts, { modelThreshold: Infinity });
    for (const name of ['acme_recent', 'acme_sessid']) {
      const result = small.classify({ name });
      expect(result.category, name).toBeUndefined();
      expect(result.guess?.source, name).toMatch(/^open-cookie-database: exact name .*; uncertain: /);
    }
    expect(small.classify({ name: 'acme_ads' }).category?.value).toBe('marketing');
  });

  it('lets the model decide a name nobody lists when its words are telling enough', () => {
    const facts = factsFromOpenCookieDatabase([
      ...['acme_session', 'shop_session', 'app_session_id', 'my_session', 'site_session'].map((cookie) => row(cookie, 'Functional')),
      ...['acme_ads_id', 'shop_ads', 'ads_partner', 'app_ads_uid', 'site_ads'].map((cookie) => row(cookie, 'Marketing')),
    ]);
    const small = Classifier.build(new Knowledge(facts, []), facts, { modelThreshold: 0.6 });
    expect(small.classify({ name: 'weblog_session' }).category).toMatchObject({ value: 'necessary', source: expect.stringMatching(/^model: /) });
    expect(small.classify({ name: 'blog_ads' }).category?.value).toBe('marketing');
  });
});

function row(cookie: string, category: string) {
  return { platform: 'Test', category, cookie, domain: '', description: '', retentionPeriod: '', dataController: 'Test', wildcardMatch: '0' };
}
