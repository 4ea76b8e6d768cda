import type { StandardCategory } from '../knowledge/categories.ts';
import { exceptionFor, isAdClickName, isChoiceName, isFeatureName, isGenericName, necessaryRule, siteOwnRule, siteWordsSay } from '../knowledge/convention.ts';
import { hostAndParents, normaliseHost } from '../knowledge/host-names.ts';
import { factsFromOpenCookieDatabase, factsFromRegistry, Knowledge, type CookieFact, type DomainFact } from '../knowledge/knowledge.ts';
import { loadRegistryVendors, Registry, type RegistryMatch, type RegistryVendor } from '../knowledge/registry.ts';
import { loadOpenCookieDatabase, loadThirdPartyWeb } from '../knowledge/sources.ts';
import { relabelledBySiblings } from '../knowledge/registry-siblings.ts';
import { Controllers } from './controllers.ts';
import { domainFeatures, durationFeatures, nameFeatures, placeOf, registrableDomain } from './features.ts';
import { CategoryModel, type Example, type Feature } from './model.ts';

/** What the AI is asked about: a storage item as it is stored. */
export interface ItemToClassify {
  name: string;
  domain?: string;
  duration?: string;
  /** The script (or response) a scan saw write it, as a URL: its vendor, when the name alone says nothing. */
  setBy?: string;
  /** The website's own domain (the account's): a cookie on another party's domain is that party's. */
  site?: string;
}

export interface Finding<T> {
  value: T;
  confidence: number;
  /** The knowledge the finding rests on, e.g. `open-cookie-database: exact "_ga" (Google Analytics)`. */
  source: string;
}

export interface Classification {
  /** Undefined when the AI declines: no knowledge matched and the model is unsure. */
  category: Finding<StandardCategory> | undefined;
  /** The best guess, also when declined, so that a person sees what the AI would have said. */
  guess: Finding<StandardCategory> | undefined;
  description: Finding<string> | undefined;
  companyName: Finding<string> | undefined;
  duration: Finding<string> | undefined;
}

export interface ClassifierOptions {
  /**
   * The model decides only from this probability up; Infinity: it never decides, it only guesses.
   */
  modelThreshold: number;
}

/**
 * The model never decides: in 5-fold cross-validation by whole vendor on the shipped knowledge
 * (`npm run eval:classifier -- --choose-threshold`; never chosen on the evaluation set), no
 * threshold made at least 50 of its answers 93% right (its best, 87% right on 63 answers from
 * 0.90). Its guess is logged for a person to decide. Run it again when the knowledge grows.
 */
export const DEFAULT_CLASSIFIER_OPTIONS: ClassifierOptions = { modelThreshold: Infinity };

/** Confidence of a listed fact; a name listed with several categories gets its share of this. */
const EXACT_CONFIDENCE = 0.98;
const FOLDED_CONFIDENCE = 0.95;
const PATTERN_CONFIDENCE = 0.95;
const COVERED_NAMES_CONFIDENCE = 0.92;
/** An unlisted name of a registry vendor: its prefix, or the vendor's domain. */
const VENDOR_PREFIX_CONFIDENCE = 0.85;
const VENDOR_DOMAIN_CONFIDENCE = 0.8;
const REGISTRY_CONFIDENCE: Record<RegistryMatch['how'], number> = {
  'exact name': EXACT_CONFIDENCE,
  'name, ignoring case': FOLDED_CONFIDENCE,
  pattern: PATTERN_CONFIDENCE,
  'listed names covered by the wildcard': COVERED_NAMES_CONFIDENCE,
};

/**
 * The category most facts agree on, and the share that agrees; facts seen on `host` win ties.
 * Only facts whose label is certain vote when there are any; `uncertain` when none is.
 */
function vote(all: CookieFact[], host: string): { category: StandardCategory; share: number; fact: CookieFact; uncertain: boolean } {
  const certain = all.filter((fact) => !fact.uncertain);
  const facts = certain.length > 0 ? certain : all;
  const counts = new Map<StandardCategory, number>();
  for (const fact of facts) counts.set(fact.category, (counts.get(fact.category) ?? 0) + (fact.domain && fact.domain === host ? 1.5 : 1));
  let best: StandardCategory = facts[0].category;
  let total = 0;
  for (const [category, count] of counts) {
    total += count;
    if (count > counts.get(best)!) best = category;
  }
  const fact = facts.find((f) => f.category === best && f.domain === host) ?? facts.find((f) => f.category === best)!;
  return { category: best, share: counts.get(best)! / total, fact, uncertain: certain.length === 0 };
}

/**
 * A registry vendor's default category decides for its unlisted names only when its own listed
 * names have it at least this often: the evaluation's target rate. Measured on the registry's
 * vendors with their names held out by fold, the fallback was right 90% of the time on all of
 * them and 97% on those passing this rule.
 */
const DEFAULT_AGREEMENT = 0.93;

/** Whether two hosts belong to one registrable domain (`cdn.shop.example` and `www.shop.example`). */
const sameSite = (a: string, b: string): boolean => registrableDomain(a) === registrableDomain(b);

/** third-party-web's categories of parties whose scripts run other parties' code: a write from them says nothing of whose it is. */
const RUNS_OTHERS_CODE = new Set(['tag-manager', 'cdn', 'hosting']);

/** Frameworks and platforms, and vendors whose main product is necessary, run the site's sessions. */
const ownsSessions = (vendor: RegistryVendor): boolean => vendor.kind === 'framework' || vendor.category === 'necessary';

/** A name the convention itself decides, whoever set it: consent and opt-out names, and names of optional features. */
const CONVENTION_CONFIDENCE = { necessary: 0.9, functional: 0.85 } as const;

function conventionFor(name: string): { value: 'necessary' | 'functional'; source: string } | undefined {
  if (necessaryRule(name) === 'consent') return { value: 'necessary', source: 'convention: a consent or opt-out name is necessary' };
  if (isFeatureName(name)) return { value: 'functional', source: 'convention: a name of a chat, comments, a wishlist or recently viewed items is functional' };
  return undefined;
}

/**
 * A name nobody lists, on a domain no known third party uses, made only of the site's own name and
 * generic words (convention.ts, `siteOwnRule`): its words decide when they name one of the site's
 * mechanisms or one of the visitor's choices.
 */
const SITE_OWN_CONFIDENCE = 0.8;

/** A name nobody lists whose words say what it keeps (`wordsSay`). */
const WORDS_CONFIDENCE = 0.75;

/**
 * What the words of a name nobody lists say: whoever set it, a choice of the visitor or an ad click
 * id; on the site's own domain, also what `siteWordsSay` reads whatever else the name holds (step 7
 * of the order below).
 */
function wordsSay(name: string, onSiteDomain: boolean): { value: StandardCategory; source: string } | undefined {
  if (isChoiceName(name)) return { value: 'preferences', source: "convention: a name of the visitor's language, currency, time zone or theme is a preference" };
  if (isAdClickName(name)) return { value: 'marketing', source: "convention: a name that keeps an ad platform's click id is marketing" };
  const site = onSiteDomain ? siteWordsSay(name) : undefined;
  return site && { value: site.category, source: `convention: a ${site.rule} name on the site's own domain` };
}

/** Why the database's own label was not taken, when it was not. */
const relabelNote = (fact: CookieFact): string => (fact.relabelled ? `; relabelled: ${fact.relabelled}` : '');

export function examplesFrom(facts: CookieFact[], knowledge: Knowledge, controllers: Controllers): Example[] {
  return facts.map((fact) => ({
    features: featuresOf(fact.pattern ? `${fact.name}*` : fact.name, fact.domain, knowledge.domainFact(fact.domain), fact.duration, controllers),
    label: fact.category,
  }));
}

function featuresOf(name: string, host: string, domain: DomainFact | undefined, duration: string | undefined, controllers: Controllers): Feature[] {
  return [
    ...nameFeatures(name),
    ...durationFeatures(duration, placeOf(host, domain)),
    ...domainFeatures(host, domain),
    ...controllers.features(name, host),
  ];
}

/**
 * Classifies storage items, in this order:
 * 1. the project's cited registry (registry.ts): exact names, then patterns such as `_ga_*`; a
 *    framework's only off a registry vendor's domain, a vendor's pattern never for a consent name;
 *    a necessary cookie on an optional vendor's domain takes that vendor's category (the embed rule);
 * 2. the Open Cookie Database's exact names, relabelled under the convention (ocd-relabel.ts); a
 *    generic name it lists only for third parties' domains is a guess elsewhere;
 * 3. the convention itself: a consent or opt-out name is necessary, a name of a chat, comments, a
 *    wishlist or recently viewed items functional, whoever set it;
 * 4. the Open Cookie Database's patterns, and for a wildcard item the listed names it covers;
 * 5. the registry's vendors: a name with a vendor's own prefix, on a vendor's domain, or written (as
 *    a scan saw) by a script on a vendor's domain, takes the vendor's category, but for the fixed
 *    exceptions of the convention (consent, CSRF, session, language, currency, theme);
 * 6. a name plainly the site's own (convention.ts, `siteOwnRule`), on no known third party's
 *    domain and written by no third party's script, by its words; also where the database lists it
 *    with a label it is unsure of;
 * 7. a name whose words say the visitor's language, currency, time zone or theme is a preference,
 *    one that keeps an ad platform's click id (`gclid`, a copied `fbp`) marketing; on the site's
 *    own domain, a CSRF name, a load balancer's or a framework's session id (`CMSSESSID`) is
 *    necessary whatever its other words, a dismissed message (`promo_banner_dismissed`), a setting
 *    or the view as the visitor left it a preference, saved items or a history functional, a
 *    referral code marketing, a measurement name (`analytics_id`, a visitor id) analytics;
 * 8. a scored model trained on all of the above, for names nobody lists; it decides only from its
 *    threshold up.
 * A database label only a platform's default gives, or one the name's words contradict, and the
 * default of a vendor whose listed names have several purposes, are guesses, not decisions: a
 * person decides those. Lookups are in-memory maps: microseconds per item.
 */
export class Classifier {
  private readonly agreement = new Map<RegistryVendor, number>();

  constructor(
    private readonly knowledge: Knowledge,
    private readonly controllers: Controllers,
    private readonly model: CategoryModel,
    private readonly options: ClassifierOptions = DEFAULT_CLASSIFIER_OPTIONS,
    private readonly registry: Registry = new Registry([]),
    /** The database's facts relabelled through the registry's listing of their siblings (registry-siblings.ts). */
    private readonly siblings: ReadonlyMap<CookieFact, CookieFact> = new Map(),
  ) {}

  /**
   * `facts` are the database's (relabelled), the ones `knowledge` holds; the model learns from them,
   * as the registry's listing of their siblings relabels them, and from the registry's entries.
   */
  static build(knowledge: Knowledge, facts: CookieFact[], options?: ClassifierOptions, registry: Registry = new Registry([])): Classifier {
    const siblings = relabelledBySiblings(facts, (name) => {
      const match = registry.match(name);
      return match?.how === 'exact name' ? match.entry : undefined;
    });
    const all = [...factsFromRegistry(registry.entries), ...facts.map((fact) => siblings.get(fact) ?? fact)];
    const controllers = new Controllers(all);
    const lessons = all.filter((fact) => !fact.uncertain);
    return new Classifier(knowledge, controllers, CategoryModel.train(examplesFrom(lessons, knowledge, controllers)), options, registry, siblings);
  }

  classify(item: ItemToClassify): Classification {
    const host = normaliseHost(item.domain);
    const domain = this.knowledge.domainFact(host);
    const registered = this.registry.match(item.name);
    if (registered && this.registryAnswers(registered, item.name, host)) {
      const { entry, how, covered } = registered;
      const confidence = REGISTRY_CONFIDENCE[how];
      const source = `registry: ${how} "${covered ? item.name : entry.pattern}" (${entry.vendor}; ${entry.url}, read ${entry.read})`;
      const embedded = this.embeddedFeature(entry, item.name, host, item.site);
      const category = embedded
        ? { value: embedded, confidence, source: `${source}; on a third party's domain, there for its ${embedded} feature (the embed rule)` }
        : { value: entry.category, confidence, source };
      // The registry keeps no lifetimes: a lifetime the database lists for the same name is taken.
      const listed = registered.how === 'exact name' ? this.knowledge.exactFacts(item.name)?.facts.find((fact) => fact.duration) : undefined;
      return {
        category,
        guess: category,
        description: covered && covered > 1 ? undefined : { value: entry.purpose, confidence, source },
        companyName: { value: entry.vendor, confidence, source },
        duration: listed?.duration
          ? { value: listed.duration, confidence: EXACT_CONFIDENCE, source: `open-cookie-database: exact name "${listed.name}" (${listed.company})` }
          : undefined,
      };
    }
    const exact = item.name.includes('*') ? undefined : this.knowledge.exactFacts(item.name);
    const convention = exact ? undefined : conventionFor(item.name);
    const listed = this.listed(item.name, host);
    if (convention) {
      // The convention: a consent or opt-out name is necessary, a chat's or a wishlist's functional,
      // whatever its vendor's other names are.
      const category = { value: convention.value, confidence: CONVENTION_CONFIDENCE[convention.value], source: convention.source };
      return {
        category,
        guess: category,
        description: undefined,
        companyName: listed?.fact.company ? { value: listed.fact.company, confidence: listed.confidence, source: listed.source } : this.company(domain),
        duration: undefined,
      };
    }
    const writer = this.thirdPartyWriter(item.setBy, host);
    // A name a third party's script wrote is that party's, whatever its words.
    const own = domain || writer ? undefined : siteOwnRule(item.name, host);
    // A listing the database is unsure of gives way to the site's own words (not to an abbreviation's: some vendor's name).
    if (listed && !(listed.uncertain && own && !own.abbreviation)) {
      const { fact, confidence, source, uncertain } = listed;
      const guess = { value: fact.category, confidence, source: uncertain ? `${source}; uncertain: ${fact.uncertain}` : source };
      return {
        category: uncertain ? undefined : guess,
        guess,
        description: fact.description ? { value: fact.description, confidence, source } : undefined,
        companyName: fact.company ? { value: fact.company, confidence, source } : this.company(domain),
        duration: fact.duration ? { value: fact.duration, confidence, source } : undefined,
      };
    }
    const vendor = this.vendorFallback(item.name, host, writer?.host);
    if (vendor) {
      const category = { value: vendor.category, confidence: vendor.confidence, source: vendor.source };
      return {
        category: vendor.uncertain ? undefined : category,
        guess: category,
        description: undefined,
        companyName: { value: vendor.vendor, confidence: vendor.confidence, source: vendor.source },
        duration: undefined,
      };
    }
    // The model reads the writing script's party as the cookie's domain when the domain says nothing.
    const [place, party] = !domain && writer?.domain ? [writer.host, writer.domain] : [host, domain];
    let scored: ReturnType<CategoryModel['best']> | undefined;
    const model = () => (scored ??= this.model.best(featuresOf(item.name, place, party, item.duration, this.controllers)));
    // After an abbreviation (`cc_session`), the words count only where the model, which learnt how
    // vendors name theirs, reads the name the same: the abbreviation may be an unknown vendor's.
    if (own && (!own.abbreviation || model().category === own.category)) {
      // Also where the database lists the name with a label it is unsure of (another vendor's `SID`).
      const after = own.abbreviation ? `, after the abbreviation "${own.abbreviation}"; the model agrees` : '';
      const category = { value: own.category, confidence: SITE_OWN_CONFIDENCE, source: `convention: the site's own ${own.rule} name${after}` };
      return { category, guess: category, description: undefined, companyName: undefined, duration: undefined };
    }
    const said = wordsSay(item.name, !domain && !writer);
    if (said) {
      // Nobody lists it and no vendor claims it, but its words say what it keeps.
      const category = { ...said, confidence: WORDS_CONFIDENCE };
      return { category, guess: category, description: undefined, companyName: this.company(party), duration: undefined };
    }
    const best = model();
    const guess = {
      value: best.category,
      confidence: best.probability,
      source: `model: logistic regression on the registry and the cookie databases${party ? `, ${party.entity} (third-party-web)` : ''}`,
    };
    return {
      category: best.probability >= this.options.modelThreshold ? guess : undefined,
      guess,
      description: undefined,
      companyName: this.company(party),
      duration: undefined,
    };
  }

  /**
   * The convention's embed rule: a necessary cookie (a session, a load balancer, a bot check) on a
   * registry vendor's domain, on a site that is not the vendor's, exists only for the feature the
   * site embeds (a survey, a chat, a video: Cloudflare's `__cf_bm` on vimeo.com), and takes that
   * vendor's default category. Not for a consent name, not on the domain of a vendor whose product
   * is itself necessary (a CDN, a payment provider), and only when the site's own domain is known.
   */
  private embeddedFeature(entry: RegistryMatch['entry'], name: string, host: string, site: string | undefined): StandardCategory | undefined {
    const siteHost = normaliseHost(site);
    if (entry.category !== 'necessary' || entry.kind !== 'vendor' || !siteHost || !host) return undefined;
    if (sameSite(host, siteHost) || necessaryRule(name) === 'consent') return undefined;
    const vendor = this.registry.vendorByDomain(host);
    return vendor && vendor.category !== 'necessary' ? vendor.category : undefined;
  }

  /**
   * Whether a registry match answers: a framework's names live on the site's own domain, so on a
   * registry vendor's domain the same name is that vendor's; and a vendor's pattern (WalkMe's `wm-*`)
   * does not outweigh a consent name under it (a site's own `wm-consent`), which the convention decides.
   */
  private registryAnswers({ entry, how }: RegistryMatch, name: string, host: string): boolean {
    if (entry.kind === 'framework' && this.registry.vendorByDomain(host)?.kind === 'vendor') return false;
    return how !== 'pattern' || entry.category === 'necessary' || necessaryRule(name) !== 'consent';
  }

  /**
   * A name the knowledge does not list, of a registry vendor by its prefix, by its domain, or by
   * the domain of the third party's script that wrote it (`writerHost`). The vendor's default
   * category is a decision only when the vendor's own listed names that no exception settles have
   * it at least DEFAULT_AGREEMENT of the time; otherwise a guess. A script's vendor whose default is
   * necessary is only a guess too: that it ran says less than a name or a domain, and a wrong
   * `necessary` is the worst answer.
   */
  private vendorFallback(name: string, host: string, writerHost?: string): { category: StandardCategory; confidence: number; source: string; vendor: string; uncertain: boolean } | undefined {
    const byPrefix = this.registry.vendorByPrefix(name);
    const byDomain = byPrefix ? undefined : this.registry.vendorByDomain(host);
    const byWriter = byPrefix || byDomain || !writerHost ? undefined : this.registry.vendorByDomain(writerHost);
    const vendor = byPrefix?.vendor ?? byDomain ?? byWriter;
    if (!vendor) return undefined;
    const owns = ownsSessions(vendor);
    const exception = exceptionFor(name, owns);
    const how = byPrefix ? `prefix "${byPrefix.prefix}"` : byDomain ? `domain ${host}` : `written by a script on ${writerHost}`;
    const doubt = exception ? undefined
      : this.defaultAgreement(vendor) < DEFAULT_AGREEMENT ? 'its listed names are of several purposes'
      : byWriter && vendor.category === 'necessary' ? 'a necessary default is not taken from the script alone'
      : undefined;
    return {
      category: exception?.category ?? vendor.category,
      confidence: byPrefix ? VENDOR_PREFIX_CONFIDENCE : VENDOR_DOMAIN_CONFIDENCE,
      source: `registry vendor: ${how} (${vendor.vendor}${exception ? `; ${exception.rule} name` : ''})${doubt ? `; uncertain: ${doubt}` : ''}`,
      vendor: vendor.vendor,
      uncertain: doubt !== undefined,
    };
  }

  /**
   * The host of the script that wrote an item, when it is a third party's: not of the site's own
   * registrable domain, and not a tag manager's, a CDN's or a host's, which run other parties' code.
   */
  private thirdPartyWriter(setBy: string | undefined, host: string): { host: string; domain: DomainFact | undefined } | undefined {
    const writer = normaliseHost(setBy);
    if (!writer || (host && sameSite(writer, host))) return undefined;
    const domain = this.knowledge.domainFact(writer);
    if (domain && RUNS_OTHERS_CODE.has(domain.thirdPartyCategory)) return undefined;
    return { host: writer, domain };
  }

  /** The share of a vendor's listed names, among those no exception settles, that have its default category. */
  private defaultAgreement(vendor: RegistryVendor): number {
    let share = this.agreement.get(vendor);
    if (share === undefined) {
      const owns = ownsSessions(vendor);
      const plain = vendor.cookies.filter(([pattern]) => !exceptionFor(pattern, owns));
      share = plain.length === 0 ? 1 : plain.filter(([, category]) => category === vendor.category).length / plain.length;
      this.agreement.set(vendor, share);
    }
    return share;
  }

  private company(domain: DomainFact | undefined): Finding<string> | undefined {
    return domain ? { value: domain.company, confidence: 0.9, source: `third-party-web: ${domain.entity}` } : undefined;
  }

  /** The database's facts as the registry's listing of their siblings relabels them. */
  private asRelabelled(facts: CookieFact[]): CookieFact[] {
    return facts.map((fact) => this.siblings.get(fact) ?? fact);
  }

  private listed(name: string, host: string): { fact: CookieFact; confidence: number; source: string; uncertain: boolean } | undefined {
    const star = name.indexOf('*');
    const literal = star === -1 ? name : name.slice(0, star);
    if (star === -1) {
      const exact = this.knowledge.exactFacts(name);
      if (exact) {
        const { category, share, fact, uncertain } = vote(this.asRelabelled(exact.facts), host);
        const base = exact.folded ? FOLDED_CONFIDENCE : EXACT_CONFIDENCE;
        const source = `open-cookie-database: ${exact.folded ? 'name, ignoring case' : 'exact name'} "${fact.name}" (${fact.company})${relabelNote(fact)}`;
        // A name other software also uses is the listed party's only on its own domain (Facebook's `locale`).
        const elsewhere = !uncertain && isGenericName(name) && exact.facts.every((f) => f.domain && !hostAndParents(host).includes(f.domain));
        if (elsewhere) return { fact: { ...fact, category, uncertain: `a name other software also uses, listed for ${fact.domain}` }, uncertain: true, confidence: base * share, source };
        return { fact: { ...fact, category }, uncertain, confidence: base * share, source };
      }
    }
    const patterns = this.knowledge.patternFacts(literal);
    if (patterns) {
      const { category, share, fact, uncertain } = vote(this.asRelabelled(patterns), host);
      return { fact: { ...fact, category }, uncertain, confidence: PATTERN_CONFIDENCE * share, source: `open-cookie-database: pattern "${fact.name}*" (${fact.company})${relabelNote(fact)}` };
    }
    if (star !== -1) {
      const covered = this.asRelabelled(this.knowledge.namesStartingWith(literal));
      if (covered.length > 0) {
        const { category, share, fact, uncertain } = vote(covered, host);
        const summary = { ...fact, category, description: covered.length === 1 ? fact.description : '' };
        return { fact: summary, uncertain, confidence: COVERED_NAMES_CONFIDENCE * share, source: `open-cookie-database: ${covered.length} listed names matching "${literal}*" (${fact.company})${relabelNote(fact)}` };
      }
    }
    return undefined;
  }
}

/** The shipped classifier: the registry, the relabelled database, and a model trained on both. */
export function loadClassifier(options?: ClassifierOptions): Classifier {
  const facts = factsFromOpenCookieDatabase(loadOpenCookieDatabase());
  return Classifier.build(new Knowledge(facts, loadThirdPartyWeb()), facts, options, new Registry(loadRegistryVendors()));
}
