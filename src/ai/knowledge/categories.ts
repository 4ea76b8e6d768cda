/**
 * The five standard categories the AI sorts storage items into, and how the vocabularies of the
 * knowledge sources map onto them.
 */
export const STANDARD_CATEGORIES = ['necessary', 'functional', 'analytics', 'marketing', 'preferences'] as const;
export type StandardCategory = (typeof STANDARD_CATEGORIES)[number];

export interface StandardCategoryDefinition {
  name: string;
  description: string;
  /** Visitors cannot reject it. */
  required: boolean;
  /** Slugs or names an account may already use for it (`statistics` is analytics). */
  synonyms: string[];
}

export const STANDARD_CATEGORY_DEFINITIONS: Record<StandardCategory, StandardCategoryDefinition> = {
  necessary: {
    name: 'Necessary',
    description: 'Needed for the website to work: sessions, security, load balancing and the consent choice itself.',
    required: true,
    synonyms: ['necessary', 'strictly-necessary', 'strictly_necessary', 'essential', 'required', 'technical', 'security'],
  },
  functional: {
    name: 'Functional',
    description: 'Features visitors may do without: embedded videos and maps, chat widgets, third-party tools.',
    required: false,
    synonyms: ['functional', 'functionality'],
  },
  analytics: {
    name: 'Analytics',
    description: 'Measure how visitors use the website, to improve it.',
    required: false,
    synonyms: ['analytics', 'statistics', 'performance', 'measurement', 'stats'],
  },
  marketing: {
    name: 'Marketing',
    description: 'Advertising, retargeting and social media tracking across websites.',
    required: false,
    synonyms: ['marketing', 'advertising', 'ads', 'targeting', 'tracking', 'social-media', 'social_media'],
  },
  preferences: {
    name: 'Preferences',
    description: "Remember the visitor's choices, such as language or region.",
    required: false,
    synonyms: ['preferences', 'personalization', 'personalisation', 'personalization-cookies'],
  },
};

/**
 * Open Cookie Database categories, mapped plainly. Its "Functional" is defined there as
 * "technical, essential or strictly necessary", but its Functional rows are mostly optional
 * features: ocd-relabel.ts decides them row by row, and only a rule or the registry makes one
 * necessary. "Personalization" is its name for preferences.
 */
const OPEN_COOKIE_DATABASE: Record<string, StandardCategory> = {
  functional: 'functional',
  necessary: 'necessary',
  security: 'necessary',
  personalization: 'preferences',
  preferences: 'preferences',
  analytics: 'analytics',
  marketing: 'marketing',
};

export function fromOpenCookieDatabase(category: string): StandardCategory | undefined {
  return OPEN_COOKIE_DATABASE[category.trim().toLowerCase()];
}

/**
 * third-party-web entity categories: what a cookie set from such a domain most likely is.
 * `other` says nothing and maps to nothing.
 */
const THIRD_PARTY_WEB: Record<string, StandardCategory> = {
  ad: 'marketing',
  marketing: 'marketing',
  social: 'marketing',
  analytics: 'analytics',
  'tag-manager': 'analytics',
  'customer-success': 'functional',
  video: 'functional',
  utility: 'functional',
  content: 'functional',
  cdn: 'necessary',
  hosting: 'necessary',
  'consent-provider': 'necessary',
};

export function fromThirdPartyWeb(category: string): StandardCategory | undefined {
  return THIRD_PARTY_WEB[category];
}

/** The languages besides English the knowledge words the standard categories in (those the banner has built-in words for). */
type WordedLanguage = 'de' | 'fr' | 'es' | 'it' | 'nl';

/** The standard categories' names and descriptions in those languages, written for this project from the English ones above. */
const STANDARD_CATEGORY_TEXTS: Record<WordedLanguage, Record<StandardCategory, { name: string; description: string }>> = {
  de: {
    necessary: { name: 'Notwendig', description: 'Für den Betrieb der Website nötig: Sitzungen, Sicherheit, Lastverteilung und die Einwilligungsentscheidung selbst.' },
    functional: { name: 'Funktional', description: 'Funktionen, auf die Besucher verzichten können: eingebettete Videos und Karten, Chat-Widgets, Werkzeuge von Drittanbietern.' },
    analytics: { name: 'Statistik', description: 'Messen, wie Besucher die Website nutzen, um sie zu verbessern.' },
    marketing: { name: 'Marketing', description: 'Werbung, Retargeting und Tracking durch soziale Medien über Websites hinweg.' },
    preferences: { name: 'Präferenzen', description: 'Merken sich die Entscheidungen der Besucher, etwa Sprache oder Region.' },
  },
  fr: {
    necessary: { name: 'Nécessaires', description: 'Indispensables au fonctionnement du site : sessions, sécurité, répartition de charge et le choix de consentement lui-même.' },
    functional: { name: 'Fonctionnels', description: 'Fonctions dont les visiteurs peuvent se passer : vidéos et cartes intégrées, fenêtres de discussion, outils tiers.' },
    analytics: { name: 'Statistiques', description: 'Mesurent l’utilisation du site par les visiteurs, pour l’améliorer.' },
    marketing: { name: 'Marketing', description: 'Publicité, reciblage et suivi par les réseaux sociaux d’un site à l’autre.' },
    preferences: { name: 'Préférences', description: 'Retiennent les choix du visiteur, comme la langue ou la région.' },
  },
  es: {
    necessary: { name: 'Necesarias', description: 'Imprescindibles para que el sitio funcione: sesiones, seguridad, balanceo de carga y la propia elección de consentimiento.' },
    functional: { name: 'Funcionales', description: 'Funciones de las que los visitantes pueden prescindir: vídeos y mapas integrados, chats, herramientas de terceros.' },
    analytics: { name: 'Analíticas', description: 'Miden cómo usan los visitantes el sitio, para mejorarlo.' },
    marketing: { name: 'Marketing', description: 'Publicidad, retargeting y seguimiento de redes sociales entre sitios web.' },
    preferences: { name: 'Preferencias', description: 'Recuerdan las elecciones del visitante, como el idioma o la región.' },
  },
  it: {
    necessary: { name: 'Necessari', description: 'Indispensabili al funzionamento del sito: sessioni, sicurezza, bilanciamento del carico e la scelta di consenso stessa.' },
    functional: { name: 'Funzionali', description: 'Funzioni di cui i visitatori possono fare a meno: video e mappe incorporati, chat, strumenti di terze parti.' },
    analytics: { name: 'Statistiche', description: 'Misurano come i visitatori usano il sito, per migliorarlo.' },
    marketing: { name: 'Marketing', description: 'Pubblicità, retargeting e tracciamento dei social network tra siti web.' },
    preferences: { name: 'Preferenze', description: 'Ricordano le scelte del visitatore, come la lingua o la regione.' },
  },
  nl: {
    necessary: { name: 'Noodzakelijk', description: 'Nodig om de website te laten werken: sessies, beveiliging, load balancing en de toestemmingskeuze zelf.' },
    functional: { name: 'Functioneel', description: 'Functies die bezoekers kunnen missen: ingesloten video’s en kaarten, chatwidgets, tools van derden.' },
    analytics: { name: 'Analytisch', description: 'Meten hoe bezoekers de website gebruiken, om die te verbeteren.' },
    marketing: { name: 'Marketing', description: 'Advertenties, retargeting en tracking door sociale media over websites heen.' },
    preferences: { name: 'Voorkeuren', description: 'Onthouden de keuzes van de bezoeker, zoals taal of regio.' },
  },
};

/**
 * A standard category's name and description in a language (or its language without the region:
 * `de-CH` is worded as `de`); undefined in a language the knowledge does not word them in.
 */
export function standardCategoryText(standard: StandardCategory, language: string): { name: string; description: string } | undefined {
  const primary = language.split('-')[0];
  if (primary === 'en') return { name: STANDARD_CATEGORY_DEFINITIONS[standard].name, description: STANDARD_CATEGORY_DEFINITIONS[standard].description };
  return STANDARD_CATEGORY_TEXTS[primary as WordedLanguage]?.[standard];
}
