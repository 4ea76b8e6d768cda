/**
 * Writes `time-zones.json`: for every time zone name a browser may report, the countries a person
 * whose clock is set to it may be in. From the tz database as the system has it (`/usr/share/zoneinfo`:
 * `zone.tab`, the zone a country's clocks are set to, and `tzdata.zi` for the older names linked to
 * them; the tz database is in the public domain), and this Node's ICU for the names browsers report
 * (`Asia/Calcutta` for `Asia/Kolkata`). A name gets every country any of these gives it. Not
 * `zone1970.tab`: it merges countries whose clocks have agreed since 1970 (Norway into Berlin), while a
 * Norwegian's clock is set to `Europe/Oslo`. Names without a country (`UTC`, `CET`) are left out.
 *
 * A country missing from a zone can only make the banner stricter than the account asked (the zone
 * is settled as opt-in only when every country of it is opt-in), never less strict.
 *
 * Run with `npm run geo:time-zones` after a tz release; the file is committed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TZ = process.env.TZ_DIR ?? '/usr/share/zoneinfo';
const read = (name: string) => readFileSync(join(TZ, name), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));

const countries = new Map<string, Set<string>>();
const add = (name: string, codes: Iterable<string>) => {
  const set = countries.get(name) ?? new Set<string>();
  for (const code of codes) set.add(code);
  countries.set(name, set);
};

// zone.tab: a country and a zone its clocks are set to, per line.
for (const line of read('zone.tab')) {
  const [code, , name] = line.split('\t');
  add(name, [code]);
}

// Links (`L target name`, an older name): a link's countries are its target's (targets link to no further name).
for (const line of read('tzdata.zi').filter((entry) => entry.startsWith('L '))) {
  const [, target, name] = line.split(' ');
  add(name, countries.get(target) ?? []);
}

// The name ICU reports for each zone (browsers report ICU's names).
for (const [name, codes] of [...countries]) {
  let reported: string;
  try {
    reported = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    continue;
  }
  if (reported !== name) add(reported, codes);
}

const table = Object.fromEntries(
  [...countries]
    .filter(([, codes]) => codes.size > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, codes]) => [name, [...codes].sort().join(' ')]),
);
writeFileSync(new URL('time-zones.json', import.meta.url), `${JSON.stringify(table, null, 0).replace(/","/g, '",\n"')}\n`);
console.log(`${Object.keys(table).length} time zone names`);
