import { normaliseDuration } from '../knowledge/durations.ts';
import type { DomainFact } from '../knowledge/knowledge.ts';

/**
 * The features the scored fallback sees for a name nobody lists: how vendors name their cookies
 * (words such as `hj`, `amcv`, `session`, `consent`, `uid`), how long the item
 * lives (session cookies are mostly necessary, three-month ones mostly marketing), where it lives
 * (the domain, and what third-party-web says the entity behind it does), and the two together.
 * The vendors behind the nearest known cookies are in controllers.ts.
 */

const ID_LIKE = /^(?=.*\d)[a-z0-9]{8,}$/;
const SECOND_LEVEL = new Set(['co', 'com', 'org', 'net', 'gov', 'ac', 'edu', 'ne', 'or']);
const SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800, month: 2_592_000, year: 31_536_000 };
const DAY = 86_400;

/** Words of a name: `_hjSessionUser_123` → `hj session user #`. Digits and id-like runs collapse. */
export function nameWords(name: string): string[] {
  const words: string[] = [];
  for (const chunk of name.split(/[^A-Za-z0-9]+/)) {
    if (chunk === '') continue;
    if (ID_LIKE.test(chunk.toLowerCase())) {
      words.push('<id>');
      continue;
    }
    const spaced = chunk
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .replace(/([A-Za-z])(\d)/g, '$1 $2')
      .replace(/(\d)([A-Za-z])/g, '$1 $2');
    for (const word of spaced.toLowerCase().split(' ')) words.push(/^\d+$/.test(word) ? '#' : word);
  }
  return words;
}

/** `a.b.example.co.uk` → `example.co.uk`: the part of a host its owner registered. */
export function registrableDomain(host: string): string {
  const labels = host.split('.');
  if (labels.length <= 2) return host;
  const keep = labels.at(-1)!.length === 2 && SECOND_LEVEL.has(labels.at(-2)!) ? 3 : 2;
  return labels.slice(-keep).join('.');
}

/** A normalised duration in a coarse band, so that `29 days` and `30 days` say the same. */
function durationBand(duration: string): string {
  if (duration === 'session' || duration === 'persistent') return duration;
  const [count, unit] = duration.split(' ');
  const seconds = Number(count) * SECONDS[unit.replace(/s$/, '')];
  if (seconds < DAY) return 'hours';
  if (seconds <= 31 * DAY) return 'month';
  if (seconds <= 183 * DAY) return 'half-year';
  if (seconds <= 400 * DAY) return 'year';
  return 'longer';
}

/**
 * A name's words, leading characters, letter case and length. No features for its first two to six
 * characters: they name the vendor, which the model then learned to copy, and for a vendor it has
 * never seen they are another vendor's start (`_lr_` is LiveRamp's and LogRocket's). Measured by
 * whole vendor on the evaluation's build side, the model's guesses were right 55% of the time
 * without them and 49% with them, and guessed `necessary` wrongly half as often. The nearest known
 * names' vendors (controllers.ts) still carry a known vendor over to its unlisted names.
 */
export function nameFeatures(name: string): string[] {
  const clean = name.replace(/\*/g, '');
  const folded = clean.toLowerCase();
  const features: string[] = [];
  for (const word of new Set(nameWords(clean))) features.push(`w:${word}`);
  const leading = /^[_.$-]*/.exec(clean)![0];
  features.push(
    `lead:${leading}`,
    `case:${clean === clean.toUpperCase() ? 'upper' : clean === folded ? 'lower' : 'mixed'}`,
    `len:${Math.min(folded.length >> 2, 6)}`,
  );
  return features;
}

/**
 * Where an item lives, coarsely: no domain (mostly the site's own), a known third party of some
 * kind, or another domain.
 */
export function placeOf(host: string, fact: DomainFact | undefined): string {
  return !host ? 'no-domain' : fact ? `third-party:${fact.category ?? 'other'}` : 'other-domain';
}

/**
 * How long the item lives, also read together with where (`place`): the same lifetime says different
 * things of a cookie with no domain, of an ad network's and of an analytics vendor's.
 * An unknown lifetime says nothing, and is no feature: which facts lack one depends on the source
 * they come from (the registry keeps no lifetimes), not on what the cookies are for, and a
 * feature for it taught the model the registry's mix of vendors instead.
 */
export function durationFeatures(raw: string | undefined, place: string): string[] {
  const duration = normaliseDuration(raw);
  if (!duration) return [];
  const band = durationBand(duration);
  return [`dur:${duration}`, `band:${band}`, `band×place:${band}|${place}`];
}

/** Nothing for an unknown host, for the same reason as an unknown lifetime. */
export function domainFeatures(host: string, fact: DomainFact | undefined): string[] {
  if (!host) return [];
  const registrable = registrableDomain(host);
  const features = [`d:${registrable}`, `dl:${registrable.split('.')[0]}`];
  if (fact) features.push(`tpw:${fact.thirdPartyCategory}`, `tpwc:${fact.category ?? 'none'}`, `tpe:${fact.entity}`);
  return features;
}
