import type { StandardCategory } from '../knowledge/categories.ts';
import { factsFromOpenCookieDatabase, Knowledge, normaliseHost, type CookieFact, type DomainFact } from '../knowledge/knowledge.ts';
import { loadOpenCookieDatabase, loadThirdPartyWeb } from '../knowledge/sources.ts';
import { Controllers } from './controllers.ts';
import { domainFeatures, durationFeatures, nameFeatures, placeOf } from './features.ts';
import { CategoryModel, type Example, type Feature } from './model.ts';

/** What the AI is asked about: a storage item as it is stored. */
export interface ItemToClassify {
  name: string;
  domain?: string;
  duration?: string;
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
   * The model decides only from this probability up. Chosen by 10-fold cross-validation on the
   * knowledge itself (never on the held-out evaluation set): see `npm run eval:classifier`.
   */
  modelThreshold: number;
}

export const DEFAULT_CLASSIFIER_OPTIONS: ClassifierOptions = { modelThreshold: 0.67 };

/** Confidence of a listed fact; a name listed with several categories gets its share of this. */
const EXACT_CONFIDENCE = 0.98;
const FOLDED_CONFIDENCE = 0.95;
const PATTERN_CONFIDENCE = 0.95;
const COVERED_NAMES_CONFIDENCE = 0.92;

/** The category most facts agree on, and the share that agrees; facts seen on `host` win ties. */
function vote(facts: CookieFact[], host: string): { category: StandardCategory; share: number; fact: CookieFact } {
  const counts = new Map<StandardCategory, number>();
  for (const fact of facts) counts.set(fact.category, (counts.get(fact.category) ?? 0) + (fact.domain && fact.domain === host ? 1.5 : 1));
  let best: StandardCategory = facts[0].category;
  let total = 0;
  for (const [category, count] of counts) {
    total += count;
    if (count > counts.get(best)!) best = category;
  }
  const fact = facts.find((f) => f.category === best && f.domain === host) ?? facts.find((f) => f.category === best)!;
  return { category: best, share: counts.get(best)! / total, fact };
}

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
 * Classifies storage items: first what the cookie databases list (exact names, then patterns such
 * as `_ga_*`, then for a wildcard item the listed names it covers), then a scored model trained on
 * the same knowledge for names nobody lists. Lookups are in-memory maps: microseconds per item.
 */
export class Classifier {
  constructor(
    private readonly knowledge: Knowledge,
    private readonly controllers: Controllers,
    private readonly model: CategoryModel,
    private readonly options: ClassifierOptions = DEFAULT_CLASSIFIER_OPTIONS,
  ) {}

  static build(knowledge: Knowledge, facts: CookieFact[], options?: ClassifierOptions): Classifier {
    const controllers = new Controllers(facts);
    return new Classifier(knowledge, controllers, CategoryModel.train(examplesFrom(facts, knowledge, controllers)), options);
  }

  classify(item: ItemToClassify): Classification {
    const host = normaliseHost(item.domain);
    const domain = this.knowledge.domainFact(host);
    const listed = this.listed(item.name, host);
    if (listed) {
      const { fact, confidence, source } = listed;
      const category = { value: fact.category, confidence, source };
      return {
        category,
        guess: category,
        description: fact.description ? { value: fact.description, confidence, source } : undefined,
        companyName: fact.company ? { value: fact.company, confidence, source } : this.company(domain),
        duration: fact.duration ? { value: fact.duration, confidence, source } : undefined,
      };
    }
    const best = this.model.best(featuresOf(item.name, host, domain, item.duration, this.controllers));
    const guess = {
      value: best.category,
      confidence: best.probability,
      source: `model: logistic regression on the cookie databases${domain ? `, ${domain.entity} (third-party-web)` : ''}`,
    };
    return {
      category: best.probability >= this.options.modelThreshold ? guess : undefined,
      guess,
      description: undefined,
      companyName: this.company(domain),
      duration: undefined,
    };
  }

  private company(domain: DomainFact | undefined): Finding<string> | undefined {
    return domain ? { value: domain.company, confidence: 0.9, source: `third-party-web: ${domain.entity}` } : undefined;
  }

  private listed(name: string, host: string): { fact: CookieFact; confidence: number; source: string } | undefined {
    const star = name.indexOf('*');
    const literal = star === -1 ? name : name.slice(0, star);
    if (star === -1) {
      const exact = this.knowledge.exactFacts(name);
      if (exact) {
        const { category, share, fact } = vote(exact.facts, host);
        const base = exact.folded ? FOLDED_CONFIDENCE : EXACT_CONFIDENCE;
        return { fact: { ...fact, category }, confidence: base * share, source: `open-cookie-database: ${exact.folded ? 'name, ignoring case' : 'exact name'} "${fact.name}" (${fact.company})` };
      }
    }
    const patterns = this.knowledge.patternFacts(literal);
    if (patterns) {
      const { category, share, fact } = vote(patterns, host);
      return { fact: { ...fact, category }, confidence: PATTERN_CONFIDENCE * share, source: `open-cookie-database: pattern "${fact.name}*" (${fact.company})` };
    }
    if (star !== -1) {
      const covered = this.knowledge.namesStartingWith(literal);
      if (covered.length > 0) {
        const { category, share, fact } = vote(covered, host);
        const summary = { ...fact, category, description: covered.length === 1 ? fact.description : '' };
        return { fact: summary, confidence: COVERED_NAMES_CONFIDENCE * share, source: `open-cookie-database: ${covered.length} listed names matching "${literal}*" (${fact.company})` };
      }
    }
    return undefined;
  }
}

/** The shipped classifier: all the installed knowledge, and a model trained on all of it. */
export function loadClassifier(): Classifier {
  const facts = factsFromOpenCookieDatabase(loadOpenCookieDatabase());
  return Classifier.build(new Knowledge(facts, loadThirdPartyWeb()), facts);
}
