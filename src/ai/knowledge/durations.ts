/**
 * Durations as people and cookie databases write them (`1 Year`, `365 days`, `Seesion`,
 * `End of session (browser)`, `2 years after last activity`) in one form: `session`,
 * `persistent`, or `<n> <unit>` in the largest unit that states it exactly (`365 days` → `1 year`,
 * `24 hours` → `1 day`, `30 days` stays: a month is not 30 days). Anything else, or a value that
 * says nothing (`Unknown`, `varies`), is undefined: the AI fills only what it knows.
 */
const UNITS: Record<string, { unit: string; seconds: number }> = {};
for (const [unit, seconds, aliases] of [
  ['second', 1, ['s', 'sec', 'secs', 'second', 'seconds']],
  ['minute', 60, ['m', 'min', 'mins', 'minute', 'minutes']],
  ['hour', 3600, ['h', 'hr', 'hrs', 'hour', 'hours']],
  ['day', 86_400, ['d', 'day', 'days']],
  ['week', 7 * 86_400, ['w', 'week', 'weeks']],
  ['month', 30 * 86_400, ['mo', 'month', 'months']],
  ['year', 365 * 86_400, ['y', 'yr', 'yrs', 'year', 'years']],
] as const) {
  for (const alias of aliases) UNITS[alias] = { unit, seconds };
}

/** Larger units first; a value moves up only when it divides exactly (months and weeks never come from days). */
const PROMOTIONS: Array<{ from: string; to: string; factor: number }> = [
  { from: 'second', to: 'minute', factor: 60 },
  { from: 'minute', to: 'hour', factor: 60 },
  { from: 'hour', to: 'day', factor: 24 },
  { from: 'day', to: 'year', factor: 365 },
  { from: 'month', to: 'year', factor: 12 },
];

const SESSION = /^(end of )?(the )?(browser )?(session|sesion|seesion|sessions)( cookie)?( \(browser\))?$/;
const PERSISTENT = /^(forever|persistent|permanent|unlimited|no expiration|never expires?)$/;
const AMOUNT = /^(\d+)\s*([a-z]+)\.?$/;

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

export function normaliseDuration(raw: string | undefined | null): string | undefined {
  const text = (raw ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  if (text === '') return undefined;
  if (SESSION.test(text)) return 'session';
  if (PERSISTENT.test(text)) return 'persistent';
  const match = AMOUNT.exec(text);
  if (!match) return undefined;
  const known = UNITS[match[2]];
  let count = Number(match[1]);
  if (!known || count === 0) return undefined;
  let unit: string = known.unit;
  for (const step of PROMOTIONS) {
    if (unit === step.from && count % step.factor === 0) {
      count /= step.factor;
      unit = step.to;
    }
  }
  return plural(count, unit);
}

/** "Session" and "persistent" in the languages the banner has built-in words for, written for this project. */
const WORDS: Record<string, Record<'session' | 'persistent', string>> = {
  en: { session: 'session', persistent: 'persistent' },
  de: { session: 'Sitzung', persistent: 'dauerhaft' },
  fr: { session: 'session', persistent: 'persistant' },
  es: { session: 'sesión', persistent: 'persistente' },
  it: { session: 'sessione', persistent: 'persistente' },
  nl: { session: 'sessie', persistent: 'blijvend' },
};

/**
 * A duration in the normal form above (`2 years`, `30 days`, `session`) said in a language:
 * `2 Jahre`, `30 jours`, `Sitzung`. An amount is worded by the runtime's locale data, in any
 * language it has; `session` and `persistent` in the languages of WORDS. Undefined for any other
 * text, or a language neither knows.
 */
export function durationIn(duration: string, language: string): string | undefined {
  const words = WORDS[language.split('-')[0]];
  if (duration === 'session' || duration === 'persistent') return words?.[duration];
  const match = /^(\d+) ([a-z]+?)s?$/.exec(duration);
  if (!match || normaliseDuration(duration) !== duration) return undefined;
  try {
    if (Intl.NumberFormat.supportedLocalesOf(language).length === 0) return undefined;
    return new Intl.NumberFormat(language, { style: 'unit', unit: match[2], unitDisplay: 'long' }).format(Number(match[1]));
  } catch {
    return undefined;
  }
}
