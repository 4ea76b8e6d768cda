import type { StandardCategory } from './categories.ts';

/** What an account's category is, as far as its meaning goes. */
export interface CategoryText {
  slug: string;
  name: string;
  description: string;
}

/** A category of an account, as matched against the standard ones. */
export interface AccountCategory extends CategoryText {
  required: boolean;
  created_at: Date;
}

/**
 * Words that say which standard category an account's own category is, in the languages accounts
 * name their categories in (English, German, French, Spanish, Italian, Dutch, Portuguese, Polish,
 * Swedish, Danish, Norwegian). Compared without accents, lower-cased, word by word.
 */
const MEANING: Record<StandardCategory, string[]> = {
  necessary: [
    'necessary', 'essential', 'essentials', 'strictly', 'required', 'technical', 'security', 'mandatory',
    'notwendig', 'notwendige', 'erforderlich', 'erforderliche', 'essenziell', 'essenzielle', 'technisch', 'technische', 'unbedingt',
    'necessaire', 'necessaires', 'essentiel', 'essentiels', 'strictement', 'obligatoire', 'obligatoires', 'techniques',
    'necesarias', 'necesarios', 'esenciales', 'tecnicas', 'imprescindibles', 'obligatorias',
    'necessari', 'necessarie', 'essenziali', 'tecnici', 'obbligatori',
    'noodzakelijk', 'noodzakelijke', 'essentieel', 'essentiele', 'technische',
    'necessarios', 'essenciais', 'obrigatorios',
    'niezbedne', 'konieczne', 'wymagane', 'techniczne',
    'nodvandiga', 'nodvandig', 'nodvendige', 'nodvendig', 'nodvandige',
  ],
  functional: [
    'functional', 'functionality', 'features', 'feature',
    'funktional', 'funktionale', 'funktionell', 'funktionelle', 'funktion', 'funktionen', 'komfort',
    'fonctionnel', 'fonctionnels', 'fonctionnalite', 'fonctionnalites',
    'funcional', 'funcionales', 'funcionalidad', 'funzionali', 'funzionalita', 'functioneel', 'functionele',
    'funcionais', 'funkcjonalne', 'funktionella', 'funktionalitet',
  ],
  analytics: [
    'analytics', 'analytic', 'analytical', 'statistics', 'statistical', 'statistic', 'performance', 'measurement', 'stats', 'audience',
    'statistik', 'statistiken', 'analyse', 'analysen', 'analytische', 'leistung', 'messung',
    'statistiques', 'mesure', 'analytiques', 'analitica', 'analiticas', 'estadisticas', 'estadisticos', 'rendimiento', 'medicion',
    'statistiche', 'analitici', 'analitiche', 'prestazioni', 'statistieken', 'analytisch', 'analytische', 'prestaties',
    'estatisticas', 'analiticos', 'desempenho', 'analityczne', 'statystyczne', 'wydajnosc', 'statistikk',
  ],
  marketing: [
    'marketing', 'advertising', 'advertisement', 'ads', 'ad', 'targeting', 'targeted', 'tracking', 'retargeting', 'social', 'remarketing',
    'werbung', 'werbe', 'publicite', 'publicitaires', 'ciblage', 'publicidad', 'publicitarias', 'publicitarios',
    'pubblicita', 'pubblicitari', 'profilazione', 'reclame', 'advertenties', 'advertentie', 'publicidade',
    'marketingowe', 'reklamowe', 'reklama', 'reklam', 'annonsering', 'annoncering',
  ],
  preferences: [
    'preferences', 'preference', 'personalization', 'personalisation', 'personalized', 'personalised', 'settings',
    'praferenzen', 'einstellungen', 'personalisierung', 'preferences', 'personnalisation',
    'preferencias', 'personalizacion', 'preferenze', 'personalizzazione', 'voorkeuren', 'voorkeur', 'personalisatie',
    'personalizacao', 'preferencje', 'personalizacja', 'preferenser', 'praeferencer', 'preferanser', 'instellingen',
  ],
};

const NEGATIONS = new Set(['non', 'not', 'no', 'nicht', 'nie', 'niet', 'pas', 'sans', 'without', 'un']);

/** `Non-essential & Marketing` → `essential` dropped (negated), `marketing` kept. */
function words(text: string): string[] {
  const all = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  return all.filter((word, i) => !NEGATIONS.has(word) && !NEGATIONS.has(all[i - 1] ?? ''));
}

const LOOKUP = new Map<string, StandardCategory[]>();
for (const [standard, list] of Object.entries(MEANING) as Array<[StandardCategory, string[]]>) {
  for (const word of new Set(list)) LOOKUP.set(word, [...(LOOKUP.get(word) ?? []), standard]);
}

/**
 * How strongly a category's slug, name and description speak for each standard category: a word of
 * the slug or name weighs 3, a word of the description 1 (once each).
 */
export function meaningScores(category: CategoryText): Record<StandardCategory, number> {
  const scores: Record<StandardCategory, number> = { necessary: 0, functional: 0, analytics: 0, marketing: 0, preferences: 0 };
  const add = (text: string, weight: number) => {
    for (const word of new Set(words(text))) for (const standard of LOOKUP.get(word) ?? []) scores[standard] += weight;
  };
  add(`${category.slug.replace(/[-_]/g, ' ')} ${category.name}`, 3);
  add(category.description, 1);
  return scores;
}

/**
 * Whether an account's category serves a standard category: the standard one scores highest for
 * it (ties allowed: "Functional & Preferences" serves both). A required category never takes a
 * category visitors may refuse: that would set the item without consent.
 */
export function servesStandard(category: AccountCategory, standard: StandardCategory): number {
  if (category.required && standard !== 'necessary') return 0;
  const scores = meaningScores(category);
  const best = Math.max(...Object.values(scores));
  return scores[standard] > 0 && scores[standard] === best ? scores[standard] : 0;
}

/** The account's category that serves `standard` best (highest score, the standard slug, then the oldest). */
export function bestMatch<C extends AccountCategory>(categories: C[], standard: StandardCategory): C | undefined {
  let best: { row: C; score: number } | undefined;
  for (const row of categories) {
    const serves = servesStandard(row, standard);
    if (serves === 0) continue;
    const score = serves + (row.slug === standard ? 0.5 : 0);
    if (!best || score > best.score || (score === best.score && row.created_at < best.row.created_at)) best = { row, score };
  }
  return best?.row;
}

