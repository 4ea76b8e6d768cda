import { fromOpenCookieDatabase, type StandardCategory } from './categories.ts';
import { isFeatureName, isPreferenceName, necessaryRule } from './convention.ts';

/**
 * The Open Cookie Database relabelled under the project's convention (convention.ts), not trusted
 * blindly. Its "Functional" means "technical, essential or strictly necessary" there, yet its
 * Functional rows hold chat widgets, embedded players, recently viewed items and language
 * settings; and for some vendors its label differs from the vendor's own documentation (session
 * replay called functional, a CRM's tracking called analytics).
 *
 * How one row is labelled:
 * 1. Its name says consent or opt-out: necessary (a tracking tool's own consent cookie included).
 * 2. A "Functional" row whose name says language, currency or theme is preferences. Any other
 *    "Functional" row becomes necessary only when a rule agrees: its name says session, CSRF,
 *    sign-in, cart or load balancing, or its platform is a consent manager or a bot, fraud or spam
 *    protection (`role`); but not on a tracking platform (one with `all`), whose "session" is its
 *    measurement session. Otherwise it takes its platform's purpose from the table below (`all`,
 *    else `functional`), or `functional` when the platform is not in the table.
 * 3. A platform whose documented purpose differs from the database's label for all its rows
 *    (`all`) gets that purpose for its Analytics and Marketing rows too.
 * 4. Everything else keeps the database's label, mapped as before.
 * A label is `uncertain` when nothing about the row itself settles it: a Security or Necessary
 * row of a tracking platform (the convention gives a third party's own security cookie the
 * category of what it serves, and in doubt never necessary), a "Functional" row labelled
 * only by its platform's default (step 2's last case: it could be a necessary mechanism, an
 * optional feature or the platform's tracking), and an Analytics or Marketing row whose name says
 * one of the necessary mechanisms (session, CSRF, sign-in, cart, load balancing: the database and
 * the name's words disagree; a tracker's measurement session, or a site's session the database
 * files under a company that also tracks, as Instagram's `sessionid` stands for Django's). An
 * uncertain label is the classifier's guess, never its decision, and the model does not learn from
 * it. Measured by vendor on the registry's vendors (eval/classifier.ts's build side), the first
 * kind was right about a third of the time for table defaults and four times in five for tracking
 * platforms, the second about two times in three: below what a decision needs.
 * The registry (registry.ts) is checked before the database, so a vendor it covers is labelled
 * from the vendor's own documentation whatever the database says.
 */
interface PlatformPurpose {
  /** What the platform's "Functional" rows are, when no rule says necessary. */
  functional?: StandardCategory;
  /** The platform's purpose for all its rows but consent and security ones. */
  all?: StandardCategory;
  /**
   * Its Functional rows are necessary: it is a consent manager, a protection layer, or a shop
   * platform whose own documentation lists its store cookies as needed for the store to work.
   */
  role?: 'consent manager' | 'protection' | 'load balancer' | 'shop platform';
}

const F = (functional: StandardCategory): PlatformPurpose => ({ functional });
const ALL = (all: StandardCategory): PlatformPurpose => ({ all, functional: all });
const CONSENT: PlatformPurpose = { role: 'consent manager', functional: 'necessary' };
const PROTECTION: PlatformPurpose = { role: 'protection', functional: 'necessary' };
const BALANCER: PlatformPurpose = { role: 'load balancer', functional: 'necessary' };
const SHOP_PLATFORM: PlatformPurpose = { role: 'shop platform', functional: 'necessary' };

/**
 * The reviewed purposes of the database's ~200 largest platforms (by number of rows), and of every
 * other platform with a Functional row, by what each platform is for. Platforms whose rows are sessions and carts of a framework or shop system have
 * `functional` here: their session and CSRF names are caught by the rules, the rest (recently
 * viewed, wishlists, editor settings) is optional.
 */
export const OCD_PLATFORM_PURPOSES: Record<string, PlatformPurpose> = {
  // Advertising, ad exchanges, retargeting, social pixels: everything they set is marketing.
  Nexx360: ALL('marketing'), LinkedIn: ALL('marketing'), Google: F('marketing'), 'Bing / Microsoft': ALL('marketing'),
  'Command Act': ALL('marketing'), PubMatic: ALL('marketing'), Facebook: ALL('marketing'), X: ALL('marketing'),
  Yahoo: ALL('marketing'), Ezoic: ALL('marketing'), Outbrain: ALL('marketing'), Smartadserver: ALL('marketing'),
  'Adobe Advertising': ALL('marketing'), 'Google Ads': ALL('marketing'), Adform: ALL('marketing'), Dotomi: ALL('marketing'),
  Yieldmo: ALL('marketing'), 'RD Station': ALL('marketing'), 'Adobe Audience Manager': ALL('marketing'), Sonobi: ALL('marketing'),
  Tailtarget: ALL('marketing'), 'Google AdSense': ALL('marketing'), 'DoubleClick/Google Marketing': ALL('marketing'),
  Taboola: ALL('marketing'), Pinterest: ALL('marketing'), Magnite: ALL('marketing'), ID5: ALL('marketing'),
  Funda: ALL('marketing'), Xandr: ALL('marketing'), Adhese: ALL('marketing'), Groovinads: ALL('marketing'),
  Lotame: ALL('marketing'), 'Blueconic.com': ALL('marketing'), Instagram: ALL('marketing'), Smaato: ALL('marketing'),
  Platform161: ALL('marketing'), Teads: ALL('marketing'), Seedtag: ALL('marketing'), Snapchat: ALL('marketing'),
  'Perfect Audience': ALL('marketing'), TikTok: ALL('marketing'), 'Casale Media': ALL('marketing'), 'openx.net': ALL('marketing'),
  Zeotap: ALL('marketing'), Ortec: ALL('marketing'), Adcalls: ALL('marketing'), Squeezely: ALL('marketing'),
  Beamer: ALL('marketing'), 'Customer.io': ALL('marketing'), Maxlead: ALL('marketing'), Admatic: ALL('marketing'),
  ComScore: ALL('marketing'), TripleLift: ALL('marketing'), Sharpspring: ALL('marketing'), Quantcast: ALL('marketing'),
  'Adalyser.com': ALL('marketing'), 'Media.net': ALL('marketing'), Nielsen: ALL('marketing'), Emetric: ALL('marketing'),
  Mediarithmics: ALL('marketing'), MediaVine: ALL('marketing'), Adkernel: ALL('marketing'), CreativeCDN: ALL('marketing'),
  Amazon: ALL('marketing'), 'adscale.de': ALL('marketing'), BlueKai: ALL('marketing'), MediaMath: ALL('marketing'),
  Tapad: ALL('marketing'), Datatrics: ALL('marketing'), Reddit: ALL('marketing'), Audrte: ALL('marketing'),
  Sleeknote: ALL('marketing'), richAudience: ALL('marketing'), Fastclick: ALL('marketing'), Sailthru: ALL('marketing'),
  MercadoLibre: ALL('marketing'), Bidence: ALL('marketing'), 'Underdog Media': ALL('marketing'), Undertone: ALL('marketing'),
  Blue: ALL('marketing'), 'Google Maps': F('functional'), 'Active Campaign': ALL('marketing'), 'justpremium.com': ALL('marketing'),
  'Improve Digital': ALL('marketing'), Atlas: ALL('marketing'), 'betweendigital.com': ALL('marketing'), LiveIntent: ALL('marketing'),
  Adxcore: ALL('marketing'), Rapleaf: ALL('marketing'), 'The Tradedesk': ALL('marketing'), FreeWheel: ALL('marketing'),
  SOVRN: ALL('marketing'), MailMunch: ALL('marketing'), Optinmonster: ALL('marketing'), Leadinfo: ALL('marketing'),
  Roku: ALL('marketing'), Tripadvisor: ALL('marketing'), 'Bazaar Voice': F('functional'),
  // CRM and marketing automation: tracking that ties visits to a person is marketing.
  Salesforce: F('marketing'), Hubspot: F('marketing'), HubSpot: F('marketing'), Marketo: ALL('marketing'),
  Mailchimp: ALL('marketing'), ZOHO: F('marketing'), Braze: ALL('marketing'), 'Microsoft Dynamics': ALL('marketing'),
  Oracle: F('marketing'), SAP: F('marketing'), Picreel: ALL('marketing'),
  // Measurement, A/B testing and session replay.
  Piano: ALL('analytics'), Hotjar: ALL('analytics'), 'Crazy Egg': ALL('analytics'), ContentSquare: ALL('analytics'),
  Qualtrics: ALL('analytics'), 'Google Analytics': ALL('analytics'), 'Yandex.Metrica': ALL('analytics'),
  'Dynamic Yield': ALL('analytics'), Dynatrace: ALL('analytics'), Microsoft: F('analytics'), Piwik: ALL('analytics'),
  Inspectlet: ALL('analytics'), Matomo: ALL('analytics'), Rudderstack: ALL('analytics'), 'Adobe Analytics': ALL('analytics'),
  'Visual Website Optimizer': ALL('analytics'), 'Lucky Orange': ALL('analytics'), 'Google Optimize': ALL('analytics'),
  Marfeel: ALL('analytics'), Amplitude: ALL('analytics'), Wikimedia: F('analytics'), Duda: F('functional'),
  'Parse.ly': ALL('analytics'), CognitoForms: F('functional'), Optimizely: ALL('analytics'), SiteSpect: ALL('analytics'),
  Dotmetrics: ALL('analytics'), 'Beslist.nl': ALL('marketing'), ABlyft: ALL('analytics'), Snowplow: ALL('analytics'),
  Gemius: ALL('analytics'), Baidu: ALL('analytics'), 'Convert Insights': ALL('analytics'), comScore: ALL('analytics'),
  'Microsoft Azure App Insights': ALL('analytics'), Oribi: ALL('analytics'), WePublish: ALL('analytics'),
  ABTasty: ALL('analytics'), 'Mopinion.com': ALL('analytics'), Ahoy: ALL('analytics'), 'Google Tag Manager': F('analytics'),
  Trustpilot: F('functional'), Indeed: F('analytics'), Kentico: F('functional'), Viafoura: F('functional'),
  // Optional features: chat, support, embedded media, comments, surveys, reviews, sharing.
  Zendesk: F('functional'), Twitch: F('functional'), Swym: F('functional'), ShareThis: ALL('marketing'),
  SurveyMonkey: F('functional'), Youtube: F('functional'), Wistia: F('functional'), Vimeo: F('functional'),
  Livechat: F('functional'), 'Tawk.to Chat': F('functional'), SnapEngage: F('functional'), Intercom: ALL('functional'),
  'LiveZilla GmbH': F('functional'), 'Live helper chat': F('functional'), Belco: F('functional'), Spotify: F('functional'),
  WhatsApp: F('functional'), Codepen: F('functional'), Sooqr: F('functional'),
  // Frameworks, CMSs, shop systems, hosting: sessions by the rules, the rest optional.
  // Added after the first evaluation run (eval/results): Shopify documents these as store-critical.
  Shopify: SHOP_PLATFORM, 'Azure / Microsoft': F('functional'), Magento: F('functional'), WordPress: F('functional'),
  GitHub: F('functional'), Xenforo: F('functional'), 'Wix.com': F('functional'), WooCommerce: F('functional'),
  Keycloak: F('functional'), 'Amazon Web Services': BALANCER, Auth0: F('functional'), PayPal: F('functional'),
  vBulletin: F('functional'), Plesk: F('functional'), Jimdo: F('functional'), AFAS: F('functional'),
  'phpMyAdmin': F('functional'), TYPO3: F('functional'), Lightspeed: F('functional'), nopCommerce: F('functional'),
  Stripe: PROTECTION, Intershop: F('functional'), 'NextAuth.js': F('functional'), 'PHP.net': F('functional'),
  'Adobe ColdFusion': F('functional'), CraftCMS: F('functional'), 'Joomla!': F('functional'),
  // Protection against bots, fraud and spam, and load balancing.
  Cloudflare: PROTECTION, CloudFlare: PROTECTION, CleanTalk: PROTECTION, Imperva: PROTECTION, Akamai: PROTECTION,
  'CHEQ AI Technologies': PROTECTION,
  // Consent managers: their cookies keep the consent choice.
  Complianz: CONSENT, 'Cookie Law Info': CONSENT, 'Consentmanager.net': CONSENT, CookieYes: CONSENT, Cookiebot: CONSENT,
  OneTrust: CONSENT, Osano: CONSENT, QookieQloud: CONSENT, 'CookieConsent.io': CONSENT, Civic: CONSENT,
  PrivacyPillar: CONSENT, Enzuzo: CONSENT, Axeptio: CONSENT, Termly: CONSENT,
  // Every other platform with a Functional row (reviewed 2026-11-28), by what it is for.
  'Google reCAPTCHA': PROTECTION, 'Akamai Botmanager': PROTECTION, Datadome: PROTECTION, Adyen: PROTECTION,
  // The database's rows of these say load balancing (Lightbox CDN's are Azure App Service's routing cookies).
  'Lightbox CDN': BALANCER, 'f5 BIG-IP': BALANCER, 'NGINX Ingresss': BALANCER, Alteon: BALANCER, HAproxy: BALANCER, Citrix: BALANCER,
  Didomi: CONSENT, 'Cookie First': CONSENT, Iubenda: CONSENT, Borlabs: CONSENT, 'Hu-manity.co': CONSENT, Moove: CONSENT,
  'Cookie Script': CONSENT,
  Permutive: ALL('marketing'), Prebid: ALL('marketing'), Loggly: F('analytics'),
  Crisp: F('functional'), Drift: F('functional'), 'Tawk.to': F('functional'), LiveChat: F('functional'), 'Channel.me': F('functional'),
  Wufoo: F('functional'), Typeform: F('functional'), Snapwidget: F('functional'), Flowbox: F('functional'), Kiyoh: F('functional'),
  FeedbackCompany: F('functional'), 'Joomla! Engagebox': F('functional'), 'Easysize.me': F('functional'),
  'Browser-Update.org': F('functional'), JoomlArt: F('functional'), 'Yithemes.com': F('functional'), WPML: F('functional'),
  Polylang: F('functional'), 'WP-Glogin': F('functional'), 'AWS Cookies Popup': F('functional'), 'WooCommerce / Jetpack': F('functional'),
  Django: F('functional'), 'ASP.net': F('functional'), Laravel: F('functional'), Wordpress: F('functional'),
  'Drupal CMS': F('functional'), CodeIgniter: F('functional'), CakePHP: F('functional'), J2EE: F('functional'), Rack: F('functional'),
  Perl: F('functional'), Next: F('functional'), 'Next.js': F('functional'), Processwire: F('functional'),
  'Devise (Ruby on Rails)': F('functional'), Vercel: F('functional'), 'Digital Factory': F('functional'),
};

export interface Relabelled {
  category: StandardCategory;
  /** Why, when it differs from the plain mapping of the database's label. */
  rule: string | undefined;
  /** Why the label is only a guess, when it is (see above). */
  uncertain?: string;
}

const PLATFORM_DEFAULT = 'a Functional row labelled only by its platform';
/** How the database marks a row set on the third party's own domain (`youtube.com (3rd party)`). */
const THIRD_PARTY_ROW = /\(3rd party\)/i;

/** The label of one Open Cookie Database row under the convention; undefined for an unknown label. */
export function relabelOpenCookieDatabase(platform: string, ocdCategory: string, cookie: string, domain = ''): Relabelled | undefined {
  const mapped = fromOpenCookieDatabase(ocdCategory);
  if (!mapped) return undefined;
  const label = ocdCategory.trim().toLowerCase();
  const purpose = OCD_PLATFORM_PURPOSES[platform.trim()];
  const rule = necessaryRule(cookie);
  if (rule === 'consent') return { category: 'necessary', rule: 'consent' };
  if (label === 'functional') {
    if (isPreferenceName(cookie)) return { category: 'preferences', rule: 'preference' };
    // The row and the name agree on a feature the convention calls functional, whoever runs it.
    if (isFeatureName(cookie)) return { category: 'functional', rule: 'feature' };
    // A tracking vendor's "session" is its measurement session, not the site's.
    if (purpose?.all) return { category: purpose.all, rule: `platform: ${platform}`, uncertain: PLATFORM_DEFAULT };
    // A third party's own sign-in or session cookie exists for its embed, an optional feature.
    if (rule && !purpose?.role && THIRD_PARTY_ROW.test(domain)) return { category: 'functional', rule: `a third party's own ${rule} cookie` };
    if (rule) return { category: 'necessary', rule };
    if (purpose?.role) return { category: 'necessary', rule: purpose.role };
    return { category: purpose?.functional ?? 'functional', rule: purpose?.functional ? `platform: ${platform}` : 'optional feature', uncertain: PLATFORM_DEFAULT };
  }
  // A tracking platform's own security cookie exists for its tracking or its embeds, not for the
  // site: under the convention it is not the site's necessary mechanism, and what it is instead
  // the row does not say.
  if (purpose?.all && mapped === 'necessary') return { category: purpose.all, rule: `platform: ${platform}`, uncertain: 'a tracking platform\'s own security cookie' };
  const tracking = purpose?.all && (label === 'analytics' || label === 'marketing') && purpose.all !== mapped
    ? { category: purpose.all, rule: `platform: ${platform}` }
    : { category: mapped, rule: undefined };
  if (rule && (tracking.category === 'analytics' || tracking.category === 'marketing')) {
    return { ...tracking, rule: tracking.rule ?? `${rule} name in a ${label} row`, uncertain: `the name says ${rule}, the database ${label}` };
  }
  return tracking;
}
