import { ownCookieDescription, ownCookieNames } from '../../../banner/src/own-cookie.ts';
import type { BuiltInLanguage } from '../../../banner/src/translations.ts';
import type { StorageType } from '../../db/schema.ts';

/**
 * What the banner itself keeps beside its consent cookie (own-cookie.ts), by the features an
 * account turns on: necessary wherever they appear, as the consent cookie is, so a scan that finds
 * them describes them and puts them in the account's required category instead of leaving them
 * to a person or the AI as unknowns. The words live here, not in the banner: the visitor reads the
 * description the account stores (in its language, or its own translation).
 */
const OWN_STORAGE: { name: string; storage_type: StorageType; descriptions: Record<BuiltInLanguage, string> }[] = [
  {
    name: '__gpp',
    storage_type: 'cookie',
    descriptions: {
      en: 'Keeps your privacy choices as an IAB Global Privacy Platform string, so that the advertising partners of this site can read and respect them.',
      de: 'Speichert Ihre Datenschutz-Entscheidungen als Zeichenkette der IAB Global Privacy Platform, damit die Werbepartner dieser Website sie lesen und beachten können.',
      fr: 'Conserve vos choix de confidentialité sous forme de chaîne IAB Global Privacy Platform, pour que les partenaires publicitaires du site puissent les lire et les respecter.',
      es: 'Guarda tus elecciones de privacidad como cadena de la IAB Global Privacy Platform, para que los socios publicitarios del sitio puedan leerlas y respetarlas.',
      it: 'Memorizza le tue scelte sulla privacy come stringa IAB Global Privacy Platform, perché i partner pubblicitari del sito possano leggerle e rispettarle.',
      nl: 'Bewaart je privacykeuzes als IAB Global Privacy Platform-tekenreeks, zodat de advertentiepartners van deze site ze kunnen lezen en respecteren.',
    },
  },
  {
    name: '__gpp_sid',
    storage_type: 'cookie',
    descriptions: {
      en: 'Says which sections of the IAB Global Privacy Platform string apply where you are.',
      de: 'Gibt an, welche Abschnitte der Zeichenkette der IAB Global Privacy Platform an Ihrem Ort gelten.',
      fr: 'Indique quelles sections de la chaîne IAB Global Privacy Platform s\'appliquent là où vous êtes.',
      es: 'Indica qué secciones de la cadena de la IAB Global Privacy Platform se aplican donde te encuentras.',
      it: 'Indica quali sezioni della stringa IAB Global Privacy Platform si applicano dove ti trovi.',
      nl: 'Geeft aan welke onderdelen van de IAB Global Privacy Platform-tekenreeks gelden waar je bent.',
    },
  },
  {
    name: 'euconsent-v2',
    storage_type: 'cookie',
    descriptions: {
      en: 'Keeps your choices for the purposes and vendors of the IAB Transparency and Consent Framework, so that the advertising partners of this site can read and respect them.',
      de: 'Speichert Ihre Entscheidungen zu den Zwecken und Anbietern des IAB Transparency and Consent Framework, damit die Werbepartner dieser Website sie lesen und beachten können.',
      fr: 'Conserve vos choix pour les finalités et les partenaires du IAB Transparency and Consent Framework, pour que les partenaires publicitaires du site puissent les lire et les respecter.',
      es: 'Guarda tus elecciones sobre los propósitos y proveedores del IAB Transparency and Consent Framework, para que los socios publicitarios del sitio puedan leerlas y respetarlas.',
      it: 'Memorizza le tue scelte su finalità e fornitori dell\'IAB Transparency and Consent Framework, perché i partner pubblicitari del sito possano leggerle e rispettarle.',
      nl: 'Bewaart je keuzes voor de doeleinden en partijen van het IAB Transparency and Consent Framework, zodat de advertentiepartners van deze site ze kunnen lezen en respecteren.',
    },
  },
  {
    name: 'consentry_region',
    storage_type: 'session_storage',
    descriptions: {
      en: 'Remembers for this visit in which country or region you are, as the consent banner learnt it, so that later pages do not ask again. Deleted when you close the browser.',
      de: 'Merkt sich für diesen Besuch, in welchem Land oder welcher Region Sie sich befinden, wie das Einwilligungsbanner es erfahren hat, damit spätere Seiten nicht erneut fragen. Wird beim Schließen des Browsers gelöscht.',
      fr: 'Retient pour cette visite le pays ou la région où vous êtes, tel que le bandeau de consentement l\'a appris, pour que les pages suivantes ne le redemandent pas. Supprimé à la fermeture du navigateur.',
      es: 'Recuerda durante esta visita en qué país o región estás, tal como lo supo el banner de consentimiento, para que las páginas siguientes no vuelvan a preguntarlo. Se borra al cerrar el navegador.',
      it: 'Ricorda per questa visita in quale paese o regione ti trovi, come l\'ha appreso il banner del consenso, perché le pagine successive non lo chiedano di nuovo. Cancellato alla chiusura del browser.',
      nl: 'Onthoudt voor dit bezoek in welk land of welke regio je bent, zoals de toestemmingsbanner het te weten kwam, zodat volgende pagina\'s het niet opnieuw vragen. Verwijderd wanneer je de browser sluit.',
    },
  },
];

/** The banner's words for one of its own storage items in a language (`de-CH` reads `de`; else English), or undefined for any other item. */
export function ownStorageDescription(accountId: string, item: { name: string; storage_type: StorageType }, language: string): string | undefined {
  if (item.storage_type === 'cookie' && ownCookieNames(accountId).includes(item.name)) return ownCookieDescription(language);
  const own = OWN_STORAGE.find((entry) => entry.name === item.name && entry.storage_type === item.storage_type);
  if (!own) return undefined;
  const base = language.toLowerCase().split('-')[0] as BuiltInLanguage;
  return own.descriptions[base] ?? own.descriptions.en;
}
