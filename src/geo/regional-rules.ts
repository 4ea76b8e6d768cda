import { canonicalRegion, regionCovers, type VisitorLocation } from './regions.ts';

/**
 * How the banner treats a visitor: `opt-in` (optional categories off until the visitor chooses),
 * `opt-out` (on, with a "Do Not Sell or Share" link that switches the sale/sharing ones off),
 * `notice` (a dismissable notice, everything on), `none` (no banner, everything on).
 */
export const MODES = ['opt-in', 'opt-out', 'notice', 'none'] as const;
export type Mode = (typeof MODES)[number];

/** One rule: the mode for visitors in any of its regions (countries, subdivisions, named groups). */
export interface RegionalRule {
  regions: string[];
  mode: Mode;
}

/**
 * What an account that set nothing gets: the GDPR's opt-in where the GDPR (or its UK and Swiss
 * counterparts) applies, opt-out in the US states with a privacy law in force, and opt-in everywhere
 * else, the choice that is safe wherever the visitor turns out to be.
 */
export const DEFAULT_REGIONAL_RULES: readonly RegionalRule[] = Object.freeze([
  Object.freeze({ regions: Object.freeze(['EEA', 'GB', 'CH']) as string[], mode: 'opt-in' as const }),
  Object.freeze({ regions: Object.freeze(['US-PRIVACY-STATES']) as string[], mode: 'opt-out' as const }),
]);
export const DEFAULT_MODE: Mode = 'opt-in';

export const MAX_REGIONAL_RULES = 50;
/** More than every country and US state together would ever need in one rule. */
export const MAX_RULE_REGIONS = 400;

/** A 422 problem, for the caller's `Problems.add(field, problem)`: `Regional rules has an unknown region code: XX`. */
export interface RuleProblem {
  field: 'regional_rules' | 'default_mode';
  problem: string;
}

/** Codes people write for a country whose ISO code is another. */
const HINTS: Record<string, string> = { UK: 'GB', EL: 'GR' };

function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : JSON.stringify(value) ?? String(value);
  return text.length > 20 ? `${text.slice(0, 20)}…` : text;
}

export function isMode(value: unknown): value is Mode {
  return typeof value === 'string' && (MODES as readonly string[]).includes(value);
}

const MODE_LIST = `one of ${MODES.join(', ')}`;

/**
 * Rules as an account sends them, checked and in canonical form (codes upper-case, each once per
 * rule, `US-PR` as `PR`), with one problem per bad code, mode or shape; the rules are only meant to
 * be used when there is no problem.
 */
export function parseRegionalRules(input: unknown): { rules: RegionalRule[]; problems: RuleProblem[] } {
  const messages = new Set<string>();
  const rules: RegionalRule[] = [];
  if (!Array.isArray(input)) {
    messages.add('must be a list of rules');
  } else {
    if (input.length > MAX_REGIONAL_RULES) messages.add(`is too long (maximum is ${MAX_REGIONAL_RULES} rules)`);
    for (const rule of input.slice(0, MAX_REGIONAL_RULES)) {
      const { regions, mode } = (typeof rule === 'object' && rule !== null ? rule : {}) as Record<string, unknown>;
      if (!Array.isArray(regions)) {
        messages.add('has a rule without a list of regions');
        continue;
      }
      if (regions.length === 0) messages.add('has a rule without regions');
      if (regions.length > MAX_RULE_REGIONS) messages.add(`has a rule with too many regions (maximum is ${MAX_RULE_REGIONS})`);
      const codes: string[] = [];
      for (const raw of regions.slice(0, MAX_RULE_REGIONS)) {
        const code = typeof raw === 'string' ? canonicalRegion(raw) : null;
        if (code !== null) {
          if (!codes.includes(code)) codes.push(code);
          continue;
        }
        const hint = typeof raw === 'string' ? HINTS[raw.trim().toUpperCase()] : undefined;
        messages.add(`has an unknown region code: ${quoted(raw)}${hint ? ` (did you mean ${hint}?)` : ''}`);
      }
      if (mode === undefined || mode === null) messages.add(`has a rule without a mode (${MODE_LIST})`);
      else if (!isMode(mode)) messages.add(`has an unknown mode: ${quoted(mode)} (${MODE_LIST})`);
      else rules.push({ regions: codes, mode });
    }
  }
  return { rules, problems: [...messages].map((problem) => ({ field: 'regional_rules', problem })) };
}

/** The default mode as an account sends it, or the problem naming it. */
export function parseDefaultMode(input: unknown): { mode: Mode | null; problems: RuleProblem[] } {
  if (isMode(input)) return { mode: input, problems: [] };
  return { mode: null, problems: [{ field: 'default_mode', problem: `is not a mode: ${quoted(input)} (${MODE_LIST})` }] };
}

/**
 * The mode for a visitor: the first rule with a region that covers them (a country rule covers the
 * whole country, a subdivision rule only that subdivision, a group its members as of `asOf`), or the
 * default mode when none does or the location is not known.
 */
export function modeFor(location: VisitorLocation, rules: readonly RegionalRule[], defaultMode: Mode, asOf: Date = new Date()): Mode {
  if (location.country === null) return defaultMode;
  const rule = rules.find((candidate) => candidate.regions.some((code) => regionCovers(code, location, asOf)));
  return rule ? rule.mode : defaultMode;
}
