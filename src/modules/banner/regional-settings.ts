import type { BannerMode, BannerRegions } from '../../../banner/src/config.ts';
import type { StoredConsentMode, StoredRegionalRule } from '../../db/schema.ts';
import { toJson } from '../../db/kysely.ts';
import { expandRegions } from '../../geo/regions.ts';
import { optInClocks } from '../../geo/time-zones.ts';
import {
  DEFAULT_MODE,
  DEFAULT_REGIONAL_RULES,
  isMode,
  parseDefaultMode,
  parseRegionalRules,
  type Mode,
  type RegionalRule,
  type RuleProblem,
} from '../../geo/regional-rules.ts';
import type { Problems } from '../../http/validation.ts';

// The banner's modes and the rules' are one list: each type must take the other's values.
const sameModes: [Mode extends BannerMode ? true : false, BannerMode extends Mode ? true : false] = [true, true];
void sameModes;

export const DEFAULT_CONSENT_MODE = Object.freeze({ ads_data_redaction: false, url_passthrough: false });

/** The stored columns of an account's regional settings; null in each: the shipped default. */
export interface RegionalColumns {
  regional_rules: StoredRegionalRule[] | null;
  default_mode: string | null;
  consent_mode: StoredConsentMode | null;
}

/** The regional settings as the API answers them: what is in force, defaults filled in. */
export interface RegionalSettings {
  regional_rules: RegionalRule[];
  default_mode: Mode;
  regional_rules_customised: boolean;
  consent_mode: { ads_data_redaction: boolean; url_passthrough: boolean };
}

/** The changes the API takes: rules and default mode are checked here, not by the body's schema, to name what is wrong. */
export interface RegionalChanges {
  regional_rules?: unknown[] | null;
  default_mode?: string | null;
  consent_mode?: Partial<StoredConsentMode> | null;
}

/** The settings in force: the account's, or the shipped defaults where it set none. */
export function regionalSettingsOf(columns: RegionalColumns): RegionalSettings {
  const stored = columns.regional_rules;
  return {
    regional_rules: (stored ?? DEFAULT_REGIONAL_RULES).map((rule) => ({ regions: [...rule.regions], mode: rule.mode as Mode })),
    default_mode: isMode(columns.default_mode) ? columns.default_mode : DEFAULT_MODE,
    regional_rules_customised: stored !== null,
    consent_mode: { ...DEFAULT_CONSENT_MODE, ...columns.consent_mode },
  };
}

/** A value sent, checked by its parser (each problem added), or null: the default again. */
function checked<T>(problems: Problems, sent: unknown, parse: (input: unknown) => [T, RuleProblem[]]): T | null {
  if (sent === null) return null;
  const [value, found] = parse(sent);
  for (const { field, problem } of found) problems.add(field, problem);
  return value;
}

/**
 * Checks the regional changes, adding a problem for each bad code or mode (`Regional rules has an
 * unknown region code: XX`), and gives the columns they set: rules in canonical form, null where the
 * defaults come back, the Consent Mode options merged with those stored.
 */
export function regionalChanges(problems: Problems, changes: RegionalChanges, current: RegionalColumns): Partial<RegionalColumns> {
  const out: Partial<RegionalColumns> = {};
  if (changes.regional_rules !== undefined) {
    out.regional_rules = checked(problems, changes.regional_rules, (input) => {
      const { rules, problems: found } = parseRegionalRules(input);
      return [rules, found];
    });
  }
  if (changes.default_mode !== undefined) {
    out.default_mode = checked(problems, changes.default_mode, (input) => {
      const { mode, problems: found } = parseDefaultMode(input);
      return [mode, found];
    });
  }
  if (changes.consent_mode !== undefined) {
    out.consent_mode = changes.consent_mode === null ? null : { ...current.consent_mode, ...changes.consent_mode };
  }
  return out;
}

/** The columns as the repository writes them (jsonb as JSON text). */
export function regionalValues(columns: Partial<RegionalColumns>) {
  const json = (value: object | null | undefined) => (value === undefined ? undefined : value === null ? null : toJson(value));
  return {
    regional_rules: json(columns.regional_rules),
    default_mode: columns.default_mode,
    consent_mode: json(columns.consent_mode),
  };
}

/**
 * What the banner script is given: the rules with every named group expanded as of `asOf` into the
 * countries and subdivisions it stands for, so that the script decides with no list of its own, and
 * the clocks (time zones) for which those rules give opt-in wherever the visitor is.
 */
export function bannerRegions(settings: Omit<RegionalSettings, 'regional_rules_customised'>, asOf: Date = new Date()): BannerRegions {
  const rules = settings.regional_rules.map((rule) => ({ regions: expandRegions(rule.regions, asOf), mode: rule.mode }));
  return {
    rules,
    default_mode: settings.default_mode,
    opt_in_clocks: optInClocks(rules, settings.default_mode, asOf),
    consent_mode: { ...settings.consent_mode },
  };
}
