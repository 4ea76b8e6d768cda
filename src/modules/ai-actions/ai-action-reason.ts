/**
 * Why the AI did what it did, in one sentence for a person, read from the `source` the classifier
 * recorded (the registry entry, the Open Cookie Database listing, the model or the language model
 * it rests on). Nothing is stored: the source stays the record, the reason is its reading.
 */
const READINGS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^registry: (.+?) "(.*?)" \((.+?);/, (m) => `The vendor registry lists ${m[3]} for the ${m[1]} "${m[2]}".`],
  [/^registry vendor: (prefix|domain) "?(.+?)"? \((.+?)[;)]/, (m) => `The name is not listed, but its ${m[1]} ${m[2]} belongs to ${m[3]} in the vendor registry.`],
  [/^open-cookie-database: (.+?) "(.*?)" \((.+?)\)/, (m) => `The Open Cookie Database lists ${m[3]} for the ${m[1]} "${m[2]}".`],
  [/^model: [^,;]*(?:, (.+?) \(third-party-web\))?/, (m) =>
    `No list names it: a model trained on the registry and the cookie databases guessed from the name${m[1] ? ` and its domain (${m[1]})` : ''}.`],
  [/^convention: (.+?)(;|$)/, (m) => `The labelling convention decides it: ${m[1]}.`],
  [/^third-party-web: (.+?)(;|$)/, (m) => `The domain belongs to ${m[1]} (third-party-web).`],
  [/^standard categories, for "(.*)"; accepted by a person$/, (m) => `Made from the standard categories when a person accepted the AI's suggestion for "${m[1]}".`],
  [/^standard categories, for "(.*)"/, (m) => `The AI made this standard category to hold "${m[1]}".`],
  [/^llm: (.+?)(;|$)/, (m) => `Written by the language model ${m[1]}.`],
  [/^durations: /, () => 'The duration said in each language from the locale data the server carries.'],
];

const DECLINED = 'declined: not confident enough to decide';
/** Added to the source of a suggestion a person accepted. */
export const ACCEPTED = 'accepted by a person';
/** Why a listing's label is only a guess (`; uncertain: a platform's default, not the row's own`). */
const UNCERTAIN = /; uncertain: ([^;]+)/;
/** How the project's convention read a database row's label (`; relabelled: consent`). */
const RELABELLED = /^open-cookie-database: [^;]*; relabelled: ([^;]+)/;

export function reasonOf(source: string): string {
  const reading = READINGS.map(([pattern, read]) => {
    const found = pattern.exec(source);
    return found ? read(found) : undefined;
  }).find((sentence) => sentence !== undefined) ?? `It rests on: ${source.replace(`; ${DECLINED}`, '').replace(`; ${ACCEPTED}`, '')}.`;
  const relabelled = RELABELLED.exec(source);
  const uncertain = UNCERTAIN.exec(source);
  const noted = relabelled ? `${reading} Read under the project's labelling convention: ${relabelled[1]}.` : reading;
  const read = uncertain ? `${noted} Its label there is uncertain: ${uncertain[1]}.` : noted;
  if (source.endsWith(`${DECLINED}; ${ACCEPTED}`)) return `${read} The AI was not sure enough to apply it; a person accepted it.`;
  return source.endsWith(DECLINED) ? `${read} Only suggested: the AI was not sure enough to apply it.` : read;
}
