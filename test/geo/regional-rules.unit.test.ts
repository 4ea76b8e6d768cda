import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MODE,
  DEFAULT_REGIONAL_RULES,
  MAX_REGIONAL_RULES,
  MAX_RULE_REGIONS,
  modeFor,
  parseDefaultMode,
  parseRegionalRules,
  type RegionalRule,
} from '../../src/geo/regional-rules.ts';

const problemsOf = (input: unknown) => parseRegionalRules(input).problems.map((p) => `${p.field}: ${p.problem}`);
const at = new Date('2026-12-06T00:00:00Z');

describe('parseRegionalRules', () => {
  it('takes rules in any case and gives them canonical, each code once per rule', () => {
    const parsed = parseRegionalRules([
      { regions: ['eea', 'gb', 'GB', ' ch '], mode: 'opt-in' },
      { regions: ['us-ca', 'US-PR'], mode: 'opt-out' },
      { regions: ['CA-QC'], mode: 'notice' },
      { regions: ['AU'], mode: 'none' },
    ]);
    expect(parsed.problems).toEqual([]);
    expect(parsed.rules).toEqual([
      { regions: ['EEA', 'GB', 'CH'], mode: 'opt-in' },
      { regions: ['US-CA', 'PR'], mode: 'opt-out' },
      { regions: ['CA-QC'], mode: 'notice' },
      { regions: ['AU'], mode: 'none' },
    ]);
    expect(parseRegionalRules([]).problems).toEqual([]);
  });

  it('names every bad code and mode', () => {
    expect(problemsOf([
      { regions: ['DE', 'XX', 'US-ZZ'], mode: 'opt-in' },
      { regions: ['UK'], mode: 'opt-maybe' },
      { regions: ['EL', 42], mode: 'OPT-IN' },
    ])).toEqual([
      'regional_rules: has an unknown region code: XX',
      'regional_rules: has an unknown region code: US-ZZ',
      'regional_rules: has an unknown region code: UK (did you mean GB?)',
      'regional_rules: has an unknown mode: opt-maybe (one of opt-in, opt-out, notice, none)',
      'regional_rules: has an unknown region code: EL (did you mean GR?)',
      'regional_rules: has an unknown region code: 42',
      'regional_rules: has an unknown mode: OPT-IN (one of opt-in, opt-out, notice, none)',
    ]);
  });

  it('says a problem once however often it occurs, and shortens a long code', () => {
    expect(problemsOf([{ regions: ['XX', 'XX'], mode: 'opt-in' }, { regions: ['XX'], mode: 'opt-in' }])).toEqual([
      'regional_rules: has an unknown region code: XX',
    ]);
    expect(problemsOf([{ regions: ['A'.repeat(100)], mode: 'opt-in' }])).toEqual([`regional_rules: has an unknown region code: ${'A'.repeat(20)}…`]);
  });

  it('refuses rules of the wrong shape, empty ones, and too many', () => {
    expect(problemsOf({ regions: ['DE'], mode: 'opt-in' })).toEqual(['regional_rules: must be a list of rules']);
    expect(problemsOf(null)).toEqual(['regional_rules: must be a list of rules']);
    expect(problemsOf(['DE'])).toEqual(['regional_rules: has a rule without a list of regions']);
    expect(problemsOf([{ regions: 'DE', mode: 'opt-in' }])).toEqual(['regional_rules: has a rule without a list of regions']);
    expect(problemsOf([{ regions: [], mode: 'opt-in' }])).toEqual(['regional_rules: has a rule without regions']);
    expect(problemsOf([{ regions: ['DE'] }])).toEqual(['regional_rules: has a rule without a mode (one of opt-in, opt-out, notice, none)']);
    const many = Array.from({ length: MAX_REGIONAL_RULES + 1 }, () => ({ regions: ['DE'], mode: 'opt-in' }));
    expect(problemsOf(many)).toEqual([`regional_rules: is too long (maximum is ${MAX_REGIONAL_RULES} rules)`]);
    expect(problemsOf([{ regions: Array.from({ length: MAX_RULE_REGIONS + 1 }, () => 'DE'), mode: 'opt-in' }])).toEqual([
      `regional_rules: has a rule with too many regions (maximum is ${MAX_RULE_REGIONS})`,
    ]);
  });

  it('accepts the shipped defaults as they are', () => {
    expect(parseRegionalRules(DEFAULT_REGIONAL_RULES)).toEqual({ rules: DEFAULT_REGIONAL_RULES, problems: [] });
    expect(DEFAULT_MODE).toBe('opt-in');
  });
});

describe('parseDefaultMode', () => {
  it('takes a mode and names anything else', () => {
    expect(parseDefaultMode('notice')).toEqual({ mode: 'notice', problems: [] });
    expect(parseDefaultMode('opt_out').problems).toEqual([{ field: 'default_mode', problem: 'is not a mode: opt_out (one of opt-in, opt-out, notice, none)' }]);
    expect(parseDefaultMode(null).mode).toBeNull();
  });
});

describe('modeFor', () => {
  const where = (country: string | null, region: string | null = null) => ({ country, region });

  it('with the shipped defaults: opt-in in the EEA, the UK and Switzerland, opt-out in the privacy states, opt-in elsewhere', () => {
    const mode = (country: string | null, region: string | null = null) => modeFor(where(country, region), DEFAULT_REGIONAL_RULES, DEFAULT_MODE, at);
    expect(mode('DE')).toBe('opt-in');
    expect(mode('NO')).toBe('opt-in');
    expect(mode('RE')).toBe('opt-in');
    expect(mode('GB')).toBe('opt-in');
    expect(mode('CH')).toBe('opt-in');
    expect(mode('US', 'US-CA')).toBe('opt-out');
    expect(mode('US', 'US-RI')).toBe('opt-out');
    expect(mode('US', 'US-NY')).toBe('opt-in');
    expect(mode('US', 'US-OK')).toBe('opt-in');
    expect(mode('US')).toBe('opt-in');
    expect(mode('JP')).toBe('opt-in');
    expect(mode(null)).toBe('opt-in');
    expect(modeFor(where('US', 'US-OK'), DEFAULT_REGIONAL_RULES, DEFAULT_MODE, new Date('2027-01-01T00:00:00Z'))).toBe('opt-out');
  });

  it('takes the first rule that covers the visitor', () => {
    const rules: RegionalRule[] = [
      { regions: ['US-CA'], mode: 'opt-out' },
      { regions: ['US'], mode: 'notice' },
      { regions: ['EEA', 'US-CA'], mode: 'opt-in' },
    ];
    expect(modeFor(where('US', 'US-CA'), rules, 'none', at)).toBe('opt-out');
    expect(modeFor(where('US', 'US-TX'), rules, 'none', at)).toBe('notice');
    expect(modeFor(where('US'), rules, 'none', at)).toBe('notice');
    expect(modeFor(where('FR'), rules, 'none', at)).toBe('opt-in');
    expect(modeFor(where('BR'), rules, 'none', at)).toBe('none');
    expect(modeFor(where(null), rules, 'none', at)).toBe('none');
    expect(modeFor(where('US', 'US-CA'), [], 'notice', at)).toBe('notice');
  });
});
