import type { StandardCategory } from './categories.ts';

/**
 * The labelling convention every label the project makes follows (docs/ai.md, "The labelling
 * convention"). It is about what the item does for the visitor of the website that declares it:
 *
 * - necessary: sessions, authentication (signing in, remember-me), CSRF, load balancing, bot and
 *   fraud protection, a shop's cart, checkout and payment, and the consent choice itself (a
 *   tracking tool's own consent or opt-out cookie included);
 * - functional: optional features (chat, embedded media, maps, comments, recently viewed items,
 *   wishlists, surveys, forms of a third party);
 * - preferences: the visitor's own choices (language, currency, region, theme, volume, layout);
 * - analytics: measurement, A/B testing and session replay, the vendor's helper cookies included
 *   (a test cookie, a sampling flag, a throttle);
 * - marketing: advertising, retargeting, cross-site tracking, and CRM or marketing-automation
 *   tracking that ties visits to a person.
 *
 * A third party's own security or session cookie that exists only because of an optional feature
 * (an embedded video, a chat widget) takes the category of that feature: the website works without
 * it. A cookie its vendor documents for several purposes takes the one that needs consent most
 * (marketing, then analytics, then functional and preferences, then necessary). When in doubt
 * between necessary and anything else, it is not necessary: a wrong `necessary` sets a cookie
 * without consent, the worst mistake there is.
 */

/**
 * The words of a consent choice, each with what it covers. A bare `gdpr` or `privacy` is not one:
 * ad and ID cookies carry them as flags (`__gsync_gdpr`, `id5id_privacy`).
 */
const CONSENT_WORDS: string[] = [
  // The choice itself, an opt-out or opt-in, Do Not Track, Global Privacy Control, the IAB's US
  // privacy string and TCF string, a tracking tool told to ignore the visitor (`matomo_ignore`).
  'consent', 'opt(ed)?[-_.]?(out|in)', '(^|[^a-z])(dnt|gpc)([^a-z]|$)', 'do[-_]?not[-_]?track', 'prevent[-_]?tracking',
  'usprivacy', '[-_.]ignore$', 'tcf',
  // A GDPR notice's answer (`gdpr_popup`), not a bare `gdpr`.
  'gdpr[-_]?(popup|banner|consent|cookie|accept)',
  // A cookie notice, its bar or its answer (`cookie_notice`, `cookie-agreed`, `cookies_disallowed`,
  // `cookie-ack`, `cookie_option_shown`, `MarketingPermissionCookie`).
  'cookies?[-_]?(notice|notif|law|policy|banner|bar|accept|agree|allow|disallow|decline|reject|compliance|control|pref|settings|cat|choice|message|disclaimer|warning|state|info|ack|option|permission)',
  '(accept|agree|allow)(ed)?[-_]?cookies?', 'permission[-_]?cookies?',
  // Cookies allowed by kind (`ALLOW_FUNCTIONAL_COOKIES`), an EU cookie notice (`EUCookie`).
  'allow(ed)?[-_][a-z]+[-_]cookies?', '(^|[^a-z])eu[-_]?cookies?',
  // A cookie named after a consent category: that category's choice (`cookie-statistics`).
  'cookies?[-_]?(non[-_]?)?(necessary|essential|functional|statistics|analytics|marketing|performance|advertising|targeting)$',
  'privacy[-_]?(pref|cookie|choice|consent|option|setting)',
];

/** Words of a name that say it belongs to one of the necessary mechanisms. */
const NECESSARY_RULES: Array<{ rule: string; pattern: RegExp }> = [
  { rule: 'consent', pattern: new RegExp(CONSENT_WORDS.join('|'), 'i') },
  // A consent manager's own prefix, in lower case only: `CMPS` is an ad cookie, `cly_cmp_id` a campaign.
  { rule: 'consent', pattern: /^_*cmp/ },
  { rule: 'csrf', pattern: /csrf|xsrf|antiforgery|requestverificationtoken|form_key|authenticity/i },
  { rule: 'session', pattern: /(^|[^a-z])(sess(ion)?(id)?|sid)([^a-z]|$)|phpsessid|jsessionid|aspsessionid|session[-_]?(id|token|key)|_session$|^sess[A-Z0-9]|^s?sess[0-9a-f]{6}/i },
  { rule: 'cart', pattern: /(^|[^a-z])(cart|basket|checkout)([^a-z]|$)|^cart|checkout/i },
  { rule: 'authentication', pattern: /logged[-_]?in|(^|[^a-z])(login|signin|sign_in|remember[-_]?me|auth)([^a-z]|$)|customer_sig/i },
  { rule: 'load balancer', pattern: /awsalb|awselb|affinity|(^|[-_])lb([-_]|$)|load[-_]?balanc|serverid|route(id)?$|bigip|^nsc_|citrix_ns_id/i },
];

/** Words of a name that say it keeps one of the visitor's choices. */
const PREFERENCE_RULE = /(^|[^a-z])(lang(uage)?|locale|i18n|currency|theme|dark[-_]?mode|color[-_]?scheme|appearance|layout|timezone|tz|region|country|font[-_]?size|volume|muted?|settings)([^a-z]|$)|language|locale|locali[sz]ation|currency|i18n_redirected/i;

/**
 * Words of a name that say it serves one of the optional features the convention lists as
 * functional: a chat, comments, a wishlist, recently viewed items. All 20 such names of the
 * evaluation's build side (registry vendors it does not hold out) are functional; the Open Cookie
 * Database has none it labels with certainty.
 */
const FEATURE_RULE = /chat|(^|[^a-z])(comments?|wishlist|wish_list|recently[-_]?viewed)([^a-z]|$)/i;

/** The necessary mechanism a name belongs to, if its words say so; undefined otherwise. */
export function necessaryRule(name: string): string | undefined {
  const clean = name.replace(/\*/g, '');
  return NECESSARY_RULES.find(({ pattern }) => pattern.test(clean))?.rule;
}

/** Whether a name's words say it keeps a choice of the visitor (language, currency, theme...). */
export function isPreferenceName(name: string): boolean {
  return PREFERENCE_RULE.test(name.replace(/\*/g, ''));
}

/**
 * The fixed exceptions to a vendor's default category for one of its names the registry does not
 * list: consent names are necessary (a tracking tool's own opt-out included); CSRF, session,
 * sign-in, cart and load-balancer names are necessary for a framework or platform
 * (`ownsSessions`), while a tracking or widget vendor's "session" is its own measurement or
 * feature session and keeps the vendor's category;
 * language, currency and theme names are preferences. Undefined when no exception applies.
 */
export function exceptionFor(name: string, ownsSessions: boolean): { category: StandardCategory; rule: string } | undefined {
  const rule = necessaryRule(name);
  if (rule === 'consent' || (ownsSessions && rule !== undefined)) return { category: 'necessary', rule };
  if (isPreferenceName(name)) return { category: 'preferences', rule: 'preference' };
  return undefined;
}

/**
 * Whether a name's words say it keeps one of the visitor's choices, whoever set it, and say nothing
 * of a necessary mechanism. `settings` is too wide (a consent tool's `uc_settings`), and a country
 * or region is as often where the visitor was found to be, for ads or a consent law
 * (`btUserCountry`, `uc_user_country`): on the registry's vendors those were the only names with a
 * choice word that were not preferences.
 */
export function isChoiceName(name: string): boolean {
  const clean = name.replace(/\*/g, '').replace(/settings|country|region/gi, '');
  return !necessaryRule(clean) && (isPreferenceName(clean) || isPreferenceName(spaced(clean)));
}

/**
 * The click ids ad platforms add to a landing page's address (Google's `gclid`, `gbraid`, `wbraid`
 * and `dclid`, Meta's `fbclid`, Microsoft's `msclkid`, TikTok's `ttclid`, X's `twclid`, Yandex's
 * `yclid`), or an ad pixel's browser or click id under its own name, as sites copy them into
 * theirs (Meta's `fbp` and `fbc`, TikTok's `ttp`, a `click_id`): a name that keeps one ties the
 * visit to an ad click or an ad platform's visitor, which is advertising by definition.
 */
const AD_CLICK_ID = /gclid|gbraid|wbraid|dclid|fbclid|msclkid|ttclid|twclid|yclid|(^|[^a-z])(fbp|fbc|ttp|click[-_ ]?id)([^a-z]|$)/i;

export const isAdClickName = (name: string): boolean => !necessaryRule(name) && AD_CLICK_ID.test(name);

/** Whether a name's words say it serves an optional feature (chat, comments, wishlist, recently viewed). */
export function isFeatureName(name: string): boolean {
  const clean = name.replace(/\*/g, '');
  return !necessaryRule(clean) && !isPreferenceName(clean) && FEATURE_RULE.test(clean);
}

/**
 * Words a site's own names are made of, with no vendor in them: what a framework or a site's code
 * calls its session, sign-in, cart or a visitor's choice (`session_id`, `csrf-token`,
 * `shoppingCartId`, `language_preference`). No brand is among them: `branch_session` or
 * `giscus-session` is some vendor's, and a vendor's "session" is often its own measurement.
 */
const GENERIC_WORDS = new Set([
  'session', 'sess', 'sessionid', 'sid', 'id', 'uid', 'token', 'key', 'password', 'sig', 'signature', 'hash', 'csrf', 'xsrf', 'csrftoken',
  'antiforgery', 'auth', 'jwt', 'login', 'logged', 'in', 'signin', 'sign', 'remember', 'me', 'user', 'member',
  'customer', 'admin', 'owner', 'guest', 'client', 'account', 'portal', 'security', 'secure', 'host', 'cart', 'basket',
  'access', 'refresh', 'verification', 'oauth', 'state', 'cookie', 'cookies', 'test', 'check', 'enabled',
  'checkout', 'order', 'shopping', 'lb', 'route', 'routeid', 'serverid', 'lang', 'language', 'locale', 'currency',
  'theme', 'pref', 'prefs', 'preference', 'preferences', 'setting', 'settings', 'selected', 'display', 'region',
  'country', 'timezone', 'tz', 'mode', 'dark', 'color', 'colour', 'scheme', 'code', 'font', 'size', 'volume', 'mute', 'muted',
  'sidebar', 'menu', 'notice', 'banner', 'popup', 'modal', 'prompt', 'dismissed', 'collapsed', 'closed', 'hidden', 'snoozed',
  'hint', 'hints', 'hide', 'toolbar', 'dashboard', 'alert', 'appearance', 'layout', 'saved', 'search', 'searches', 'favourite',
  'favourites', 'favorite', 'favorites', 'compare', 'comparison', 'history', 'recently', 'viewed', 'bookmark', 'bookmarks', 'list',
  'data', 'information', 'system', 'app', 'platform', 'report', 'public', 'web',
]);

/** What a visitor gathers on a site: saved or favourite items, bookmarks, a history (functional). */
const GATHERED_WORDS = 'saved|favou?rites?|bookmarks?|history';

/**
 * What the words of a site's own name say (read spaced, `shoppingCartId` as `shopping Cart Id`),
 * beyond the necessary mechanisms every name is read for: the first that matches decides. Only
 * for the site's own names: on a vendor's, the same words say less (X's `d_prefs` are its ad
 * settings, HubSpot's `__hs_testcookie` is marketing).
 */
const SITE_OWN_WORDS: Array<{ pattern: RegExp; category: 'necessary' | 'preferences' | 'functional'; rule: string; plainOnly?: true }> = [
  // Sign-in words beyond NECESSARY_RULES (`remember_token`, `dan_jwt`, `admin_token`, `oauth_state`:
  // all the registry's OAuth names are necessary), a password or its hash, a signature, a bare
  // `token` or an API's or a verification's. Not any token: X's `client_token` and Amazon's
  // `amzn-token` are theirs.
  { pattern: /^[-_.]*token$|(^|[^a-z])(jwt|remember|oauth|hash|password|sig|signature|verification|security|secure|(auth|admin|access|refresh|id|member|user|customer|api|verify)[-_ ]?token)([^a-z]|$)/i, category: 'necessary', rule: 'authentication' },
  // The site's check that the browser keeps cookies (`CookieCheck`, `cookieTest`).
  { pattern: /(^|[^a-z])(cookies? (test|check|enabled)|(test|check) cookies?)([^a-z]|$)/i, category: 'necessary', rule: 'cookie check' },
  // One of the visitor's choices (`selectedDisplayCurrency`).
  { pattern: PREFERENCE_RULE, category: 'preferences', rule: 'preference' },
  // The interface as the visitor left it.
  { pattern: /(^|[^a-z])(dismissed|collapsed|closed|hidden|snoozed|hide|hints?)([^a-z]|$)/i, category: 'preferences', rule: 'interface state' },
  // The site's own `prefs` or `preferences` are the visitor's (`user_preferences`).
  { pattern: /(^|[^a-z])(pref|prefs|preferences?)([^a-z]|$)/i, category: 'preferences', rule: 'preference' },
  // What the visitor gathered: saved searches, favourites, a comparison, a history.
  { pattern: new RegExp(`(^|[^a-z])(${GATHERED_WORDS}|compare|comparison|recently viewed)([^a-z]|$)`, 'i'), category: 'functional', rule: 'saved items' },
  // The signed-in person (`user`, `userId`, `fixaill_customer`, `p4t_admin`), once no word above
  // says it keeps a choice of theirs. Not after an abbreviation: there it is mostly a vendor's
  // visitor id (Segment's `ajs_user_id`, Mouseflow's `mf_user`, StackAdapt's `sa-user-id`: 19 of the
  // registry's 23 such names are not necessary). Not `client`: Google's client id is a visitor's.
  { pattern: /(^|[^a-z])(user|member|customer|admin|owner|account|uid)([^a-z]|$)/i, category: 'necessary', rule: 'signed-in person', plainOnly: true },
];

/** Digits, and a version (`v1`), say nothing of what a name is for. */
const NEUTRAL_WORD = /^(\d+|v\d+)$/;

/**
 * The start of `name` that is the site's own name: a label of its host, written with or without
 * separators (`digital-florists` on digitalflorists.com), or its initials (3 or 4 letters or digits,
 * the label's first letter and then others of it in order: `pbs` on petalandbloomstudio.co.uk, `hpp`
 * on hydeparkpharmacy.co.uk, `p4t` on park4travels.co.uk). Empty when it has none.
 */
function siteNamePrefix(name: string, labels: string[]): string {
  const lead = /^[-_.]*/.exec(name)![0].length;
  // The name's first 4 or 3 characters, where a word ends there: what may be initials.
  const initials = [4, 3].map((size) => name.slice(lead, lead + size))
    .filter((letters) => /^[a-z][a-z0-9]{2,3}$/i.test(letters) && endsWord(name, lead + letters.length));
  for (const label of labels) {
    const written = new RegExp(`^[-_.]*${[...label].map((c) => c.replace(/[^a-z0-9]/g, '\\$&')).join('[-_.]?')}`, 'i').exec(name);
    if (written && endsWord(name, written[0].length)) return written[0];
    const letters = initials.find((candidate) => isInitialsOf(candidate.toLowerCase(), label));
    if (letters) return name.slice(0, lead + letters.length);
  }
  return '';
}

/** Whether a word of `name` ends at `at`: its end, a separator, or a capital after a small letter (`ispSessionId`). */
const endsWord = (name: string, at: number): boolean =>
  at === name.length || /[^A-Za-z0-9]/.test(name[at]) || (/[a-z]/.test(name[at - 1]) && /[A-Z]/.test(name[at]));

const isInitialsOf = (letters: string, label: string): boolean => {
  if (letters[0] !== label[0]) return false;
  let at = 1;
  for (const letter of letters.slice(1)) {
    at = label.indexOf(letter, at) + 1;
    if (at === 0) return false;
  }
  return true;
};

/** A name as words: split where a lower-case letter meets a capital, and at anything not a letter or digit. */
const spaced = (name: string): string => name.replace(/\*/g, '').replace(/([a-z])([A-Z])/g, '$1 $2');

/**
 * Whether a name is plainly the site's own: after the site's own name, if it starts with it
 * (`sportgene_session` on sportgene.co.uk, `.GymHut.Session` on gymhut.co.uk, `hpp_cart_v1` on
 * hydeparkpharmacy.co.uk), each of its parts is made of generic words; digits and versions count
 * as nothing. A framework's session name with its random tail
 * (`ASPSESSIONIDQACTRBSA`) is one too.
 */
function isSiteOwnName(name: string, host: string): boolean {
  if (/^(phpsessid|jsessionid|aspsessionid[a-z]*)$/i.test(name)) return true;
  // A hyphenated label's words of three letters or more may each be the site's name (`isp` in `the-isp`).
  const whole = host.toLowerCase().split('.').filter((label) => label.length >= 3 && label !== 'www');
  const labels = [...whole, ...whole.flatMap((label) => (label.includes('-') ? label.split('-').filter((word) => word.length >= 3) : []))];
  return onlyGenericWords(name.slice(siteNamePrefix(name, labels).length), labels);
}

/** Whether each part of `rest` is one of the site's labels or made of generic words; digits and versions count as nothing. */
function onlyGenericWords(rest: string, labels: string[]): boolean {
  return rest.split(/[^A-Za-z0-9]+/).every((part) =>
    labels.includes(part.toLowerCase()) ||
    spaced(part).toLowerCase().replace(/([a-z]{2})(\d)/g, '$1 $2').split(/[^a-z0-9]+/).every((word) => !word || NEUTRAL_WORD.test(word) || GENERIC_WORDS.has(word)));
}

/** Whether a name is made only of generic words (`locale`, `session_id`, `token`): other software uses it too. */
export const isGenericName = (name: string): boolean => isSiteOwnName(name, '');

/** A short run of letters before a separator (`cc_`, `np_`, `hmapp_`): how sites abbreviate their own or their software's name. */
const ABBREVIATION = /^[-_.]*([A-Za-z]{1,5})[-_.:]+(?=[A-Za-z])/;
/** Words of measurement or advertising: `ads_session` or `trk_session` is no site's own sign-in. */
const TRACKING_WORD = /^(ads?|adv|track|trk|stats?|pixel|click|utm|ref|aff|camp|mkt|visit)$/i;

/**
 * The abbreviation a name starts with when only generic words follow it (`cc` of `cc_session`,
 * `np_access_token`, `if_csrf`). A vendor's prefix can look the same (`_sc-sid` is Snap's,
 * `pendo_sessionId` Pendo's): the registry's prefixes and the cookie database, read before, claim
 * the vendors they know, and the classifier decides such a name only where its model agrees.
 */
function abbreviationOf(name: string): string | undefined {
  const abbreviation = ABBREVIATION.exec(name);
  if (!abbreviation || TRACKING_WORD.test(abbreviation[1])) return undefined;
  const rest = name.slice(abbreviation[0].length);
  // A bare id after a prefix is as often a vendor's visitor or visit id (`obca_sid`, `__rtbh.sid`).
  return !/^[su]?id$/i.test(rest) && onlyGenericWords(rest, []) ? abbreviation[1] : undefined;
}

export interface SiteOwnReading {
  category: 'necessary' | 'preferences' | 'functional';
  rule: string;
  /** The short abbreviation the name was read after (`cc` of `cc_session`), which may be a vendor's. */
  abbreviation: string | undefined;
}

/**
 * What an unlisted name of the site's own says, read word by word (`shoppingCartId` as
 * `shopping Cart Id`): one of its mechanisms (necessary), then SITE_OWN_WORDS in their order.
 * Undefined for a name that is neither plainly the site's own (isSiteOwnName) nor an abbreviation
 * followed by generic words (abbreviationOf).
 */
export function siteOwnRule(name: string, host: string): SiteOwnReading | undefined {
  const plainly = isSiteOwnName(name, host);
  const abbreviation = plainly ? undefined : abbreviationOf(name);
  if (!plainly && !abbreviation) return undefined;
  const words = spaced(name);
  const rule = necessaryRule(name) ?? necessaryRule(words);
  if (rule) return { category: 'necessary', rule, abbreviation };
  const said = SITE_OWN_WORDS.find(({ pattern, plainOnly }) => pattern.test(words) && !(plainOnly && abbreviation));
  return said && { category: said.category, rule: said.rule, abbreviation };
}

/**
 * What the words of an unlisted name on the site's own domain say, whatever other words it holds.
 * Necessary only for what nothing but the site needs: a CSRF token protects its forms, a load
 * balancer keeps the visitor on one of its servers and a framework's session id
 * (FRAMEWORK_SESSION_ID) is its session (43 of the 47 CSRF names the registry and the database
 * hold are necessary, the other four third parties' on their own domains; all 19 load-balancer
 * names are). Otherwise never necessary, since these may be an unknown vendor's names and a wrong
 * preference or marketing asks for consent the site did not need, where a wrong necessary sets a
 * cookie without it: a message the visitor dismissed, hid or snoozed (a banner, an alert, a notice,
 * a pop-up, a hint, a suggestion, a tutorial or onboarding) is the interface as they left it, as
 * is the view (a display mode, a sort order, filters, a section collapsed; not a person's display
 * name), and a word of their preferences, colours, sound, contrast, text size, motion or
 * accessibility a setting of theirs, all preferences (not `prefs` or `settings`: X's `d_prefs`,
 * WordPress's `wpEmojiSettingsSupports`); what the visitor gathered (saved or favourite items,
 * bookmarks, a history, recent searches) is functional, as recently viewed items and wishlists
 * are; a referral or affiliate code ties the visit to whoever referred it, for a reward or a
 * commission, which is marketing; an analytics or statistics name, a visitor's or an anonymous id,
 * is measurement (not `utm`: a campaign's source is kept for either). A vendor's dismissed widget
 * (Pendo's `_pendo_launcher-closed`) is the feature's: no message word, no decision.
 */
export function siteWordsSay(name: string): { category: StandardCategory; rule: string } | undefined {
  const words = spaced(name);
  const rule = necessaryRule(name) ?? necessaryRule(words);
  if (rule === 'csrf') return { category: 'necessary', rule: 'CSRF' };
  if (rule === 'load balancer') return { category: 'necessary', rule: 'load balancer' };
  if (FRAMEWORK_SESSION_ID.test(name)) return { category: 'necessary', rule: "framework's session id" };
  if (rule) return undefined;
  if (DISMISSED.test(words)) return MESSAGE.test(words) ? { category: 'preferences', rule: 'dismissed message' } : undefined;
  if (SETTING.test(words)) return { category: 'preferences', rule: 'setting' };
  if (VIEW_STATE.test(words)) return { category: 'preferences', rule: 'view state' };
  if (GATHERED.test(words)) return { category: 'functional', rule: 'saved items' };
  if (REFERRAL.test(words)) return { category: 'marketing', rule: 'referral' };
  if (MEASUREMENT.test(words)) return { category: 'analytics', rule: 'measurement' };
  return undefined;
}

/**
 * A session id in capitals glued to its prefix, as frameworks name theirs (PHP's `PHPSESSID`,
 * Java's `JSESSIONID`, OpenCart's `OCSESSID`, a CMS's `CMSSESSID`): every such name the registry
 * and the database hold is necessary, where a vendor's measurement session is written otherwise
 * (Amplitude's `amplitude_sessionId`, Qualtrics' `SISessID`).
 */
const FRAMEWORK_SESSION_ID = /(^|[^A-Za-z])[A-Z0-9]*SESS(ION)?ID$/;
const DISMISSED = /(^|[^a-z])(dismiss(ed)?|snoozed?|hidden|hide|closed)([^a-z]|$)/i;
const MESSAGE = /(^|[^a-z])(banners?|alerts?|notices?|messages?|popups?|modals?|warnings?|notifications?|newsletters?|hints?|tips?|tut|tutorial|suggestions?|onboarding|intro|welcome|getting[-_ ]?started|announcements?|disclaimer)([^a-z]|$)/i;
const MEASUREMENT = /(^|[^a-z])(analytics|statistics|visitor[-_ ]?id|anon[-_ ]?id)([^a-z]|$)/i;
const SETTING = /(^|[^a-z])(preferences?|colou?rs?|sound|contrast|accessibility|a11y|(font|text)[-_ ]?size|motion)([^a-z]|$)/i;
const VIEW_STATE = /(^|[^a-z])(display(?![-_ ]?name)|grid|sort|sorting|filters?|per[-_ ]?page|expand(ed)?|collapsed?|columns?)([^a-z]|$)/i;
const GATHERED = new RegExp(`(^|[^a-z])(${GATHERED_WORDS}|recent(ly)?)([^a-z]|$)`, 'i');
const REFERRAL = /(^|[^a-z])(ref|referral|refcode|affiliate|aff)([^a-z]|$)/i;
