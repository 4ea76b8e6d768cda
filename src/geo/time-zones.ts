import table from './time-zones.json' with { type: 'json' };
import { modeFor, type Mode, type RegionalRule } from './regional-rules.ts';

/**
 * The clocks that settle the banner's mode without asking where the visitor is. A clock is what the
 * page can read of its time zone at no cost: its UTC offsets on 1 January and 1 July, in minutes as
 * `Date.getTimezoneOffset()` gives them (`-60/-120`: Central Europe, `300/240`: New York). Reading
 * the zone's name (`Intl.DateTimeFormat().resolvedOptions().timeZone`) costs the page 30–50 ms of
 * Chromium's time on a 2-core machine the first time, more than the request it would save.
 *
 * A clock is settled as opt-in when the account's rules give opt-in in every country whose zones keep
 * that clock, and in each of those countries' subdivisions a rule names. Opt-in is the strictest mode,
 * lawful wherever the visitor turns out to be (a traveller whose clock is still at home included), so
 * the banner may show it at once; any other clock waits for the visitor's place. Zones and their
 * countries from `time-zones.json` (the tz database's; see time-zones.generate.ts), offsets from this
 * process's ICU, for the year of `asOf`.
 */

/** `Date.getTimezoneOffset()` of `zone` at each of `dates`: minutes to add to local time to get UTC. */
function offsetsOf(zone: string, dates: Date[]): number[] {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  return dates.map((date) => {
    const name = format.formatToParts(date).find((part) => part.type === 'timeZoneName')?.value;
    const [, sign, hours, minutes] = /^GMT(?:([+-])(\d\d):(\d\d))?$/.exec(name ?? '') ?? [];
    return sign ? (sign === '-' ? 1 : -1) * (Number(hours) * 60 + Number(minutes)) : 0;
  });
}

/** Each clock of `year`, with the countries whose zones keep it. */
const clocksByYear = new Map<number, Map<string, Set<string>>>();
function clocksOf(year: number): Map<string, Set<string>> {
  let clocks = clocksByYear.get(year);
  if (!clocks) {
    clocks = new Map();
    const days = [new Date(Date.UTC(year, 0, 1, 12)), new Date(Date.UTC(year, 6, 1, 12))];
    for (const [zone, countries] of Object.entries(table as Record<string, string>)) {
      const clock = offsetsOf(zone, days).join('/');
      const known = clocks.get(clock) ?? new Set<string>();
      for (const country of countries.split(' ')) known.add(country);
      clocks.set(clock, known);
    }
    clocksByYear.clear();
    clocksByYear.set(year, clocks);
  }
  return clocks;
}

/**
 * The banner's list of the clocks settled as opt-in: those clocks, or `*` and the clocks that are not
 * (every other clock is, one of no known zone included: opt-in is lawful anywhere), whichever is
 * shorter; empty when none is. `rules` as the banner has them: countries and subdivisions only.
 */
export function optInClocks(rules: readonly RegionalRule[], defaultMode: Mode, asOf: Date = new Date()): string[] {
  const optIn = new Map<string, boolean>();
  const countryOptIn = (country: string): boolean => {
    let known = optIn.get(country);
    if (known === undefined) {
      const subdivisions = rules.flatMap((rule) => rule.regions.filter((code) => code.startsWith(`${country}-`)));
      known = [null, ...subdivisions].every((region) => modeFor({ country, region }, rules, defaultMode) === 'opt-in');
      optIn.set(country, known);
    }
    return known;
  };
  const settled: string[] = [];
  const unsettled: string[] = [];
  for (const [clock, countries] of clocksOf(asOf.getUTCFullYear())) ([...countries].every(countryOptIn) ? settled : unsettled).push(clock);
  if (settled.length === 0) return [];
  return unsettled.length < settled.length ? ['*', ...unsettled] : settled;
}
