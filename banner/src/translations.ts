/**
 * The banner's own words in the languages it ships with, written for this project. An account may
 * override any text per language (`PATCH /api/v1/banner`); what it leaves out comes from here, then
 * from English.
 *
 * In English the banner's buttons read exactly "Accept all", "Reject all" and "Manage preferences",
 * and the modal's "Save preferences": scanners look for them by these names.
 */
export const TEXT_KEYS = [
  'title',
  'description',
  'accept_all',
  'reject_all',
  'manage',
  'save',
  'preferences_title',
  'preferences_description',
  'close',
  'privacy_policy',
  'gpc_notice',
  'revision_notice',
  'consent_id',
  'cookie_name',
  'cookie_domain',
  'cookie_duration',
  'cookie_description',
  'services',
] as const;

export type TextKey = (typeof TEXT_KEYS)[number];
export type Texts = Record<TextKey, string>;

export const BUILT_IN_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl'] as const;
export type BuiltInLanguage = (typeof BUILT_IN_LANGUAGES)[number];

export const TRANSLATIONS: Record<BuiltInLanguage, Texts> = {
  en: {
    title: 'We value your privacy',
    description:
      'This site uses cookies and similar storage. Some are needed for it to work; others help us measure visits, remember your settings or show relevant ads, and are used only if you agree.',
    accept_all: 'Accept all',
    reject_all: 'Reject all',
    manage: 'Manage preferences',
    save: 'Save preferences',
    preferences_title: 'Privacy preferences',
    preferences_description:
      'Choose which kinds of storage this site may use. Necessary ones are always on. You can change your mind at any time.',
    close: 'Close',
    privacy_policy: 'Privacy policy',
    gpc_notice: 'Your browser sent a Global Privacy Control signal, so marketing stays off unless you switch it on.',
    revision_notice: 'What this site stores has changed since your last choice, so we are asking again.',
    consent_id: 'Your consent ID:',
    cookie_name: 'Name',
    cookie_domain: 'Domain',
    cookie_duration: 'Duration',
    cookie_description: 'Purpose',
    services: 'Services that receive data:',
  },
  de: {
    title: 'Ihre Privatsphäre ist uns wichtig',
    description:
      'Diese Website verwendet Cookies und ähnliche Speicher. Einige braucht sie, um zu funktionieren; andere helfen uns, Besuche zu messen, Ihre Einstellungen zu behalten oder passende Werbung zu zeigen, und werden nur mit Ihrer Zustimmung genutzt.',
    accept_all: 'Alle akzeptieren',
    reject_all: 'Alle ablehnen',
    manage: 'Einstellungen verwalten',
    save: 'Auswahl speichern',
    preferences_title: 'Datenschutz-Einstellungen',
    preferences_description:
      'Wählen Sie, welche Arten von Speicher diese Website nutzen darf. Notwendige sind immer aktiv. Sie können Ihre Wahl jederzeit ändern.',
    close: 'Schließen',
    privacy_policy: 'Datenschutzerklärung',
    gpc_notice: 'Ihr Browser sendet das Signal „Global Privacy Control“: Marketing bleibt aus, solange Sie es nicht selbst einschalten.',
    revision_notice: 'Was diese Website speichert, hat sich seit Ihrer letzten Wahl geändert, deshalb fragen wir erneut.',
    consent_id: 'Ihre Einwilligungs-ID:',
    cookie_name: 'Name',
    cookie_domain: 'Domain',
    cookie_duration: 'Dauer',
    cookie_description: 'Zweck',
    services: 'Dienste, die Daten erhalten:',
  },
  fr: {
    title: 'Votre vie privée compte pour nous',
    description:
      'Ce site utilise des cookies et des stockages similaires. Certains sont indispensables à son fonctionnement ; d’autres nous aident à mesurer les visites, à retenir vos réglages ou à afficher des publicités adaptées, et ne sont utilisés qu’avec votre accord.',
    accept_all: 'Tout accepter',
    reject_all: 'Tout refuser',
    manage: 'Gérer mes choix',
    save: 'Enregistrer mes choix',
    preferences_title: 'Préférences de confidentialité',
    preferences_description:
      'Choisissez les types de stockage que ce site peut utiliser. Les stockages nécessaires restent toujours actifs. Vous pouvez changer d’avis à tout moment.',
    close: 'Fermer',
    privacy_policy: 'Politique de confidentialité',
    gpc_notice: 'Votre navigateur envoie le signal Global Privacy Control : le marketing reste désactivé sauf si vous l’activez vous-même.',
    revision_notice: 'Ce que ce site enregistre a changé depuis votre dernier choix ; nous vous demandons donc à nouveau.',
    consent_id: 'Votre identifiant de consentement :',
    cookie_name: 'Nom',
    cookie_domain: 'Domaine',
    cookie_duration: 'Durée',
    cookie_description: 'Finalité',
    services: 'Services qui reçoivent des données :',
  },
  es: {
    title: 'Respetamos tu privacidad',
    description:
      'Este sitio usa cookies y almacenamiento similar. Algunos son necesarios para que funcione; otros nos ayudan a medir las visitas, recordar tus ajustes o mostrar anuncios relevantes, y solo se usan si lo aceptas.',
    accept_all: 'Aceptar todo',
    reject_all: 'Rechazar todo',
    manage: 'Gestionar preferencias',
    save: 'Guardar preferencias',
    preferences_title: 'Preferencias de privacidad',
    preferences_description:
      'Elige qué tipos de almacenamiento puede usar este sitio. Los necesarios están siempre activos. Puedes cambiar de opinión cuando quieras.',
    close: 'Cerrar',
    privacy_policy: 'Política de privacidad',
    gpc_notice: 'Tu navegador envió la señal Global Privacy Control, así que el marketing queda desactivado salvo que lo actives tú.',
    revision_notice: 'Lo que guarda este sitio ha cambiado desde tu última elección, por eso te lo preguntamos de nuevo.',
    consent_id: 'Tu ID de consentimiento:',
    cookie_name: 'Nombre',
    cookie_domain: 'Dominio',
    cookie_duration: 'Duración',
    cookie_description: 'Finalidad',
    services: 'Servicios que reciben datos:',
  },
  it: {
    title: 'La tua privacy è importante',
    description:
      'Questo sito usa cookie e archiviazione simile. Alcuni servono al suo funzionamento; altri ci aiutano a misurare le visite, ricordare le tue impostazioni o mostrare annunci pertinenti, e vengono usati solo se acconsenti.',
    accept_all: 'Accetta tutto',
    reject_all: 'Rifiuta tutto',
    manage: 'Gestisci preferenze',
    save: 'Salva preferenze',
    preferences_title: 'Preferenze sulla privacy',
    preferences_description:
      'Scegli quali tipi di archiviazione questo sito può usare. Quelli necessari sono sempre attivi. Puoi cambiare idea in qualsiasi momento.',
    close: 'Chiudi',
    privacy_policy: 'Informativa sulla privacy',
    gpc_notice: 'Il tuo browser ha inviato il segnale Global Privacy Control: il marketing resta disattivato a meno che non lo attivi tu.',
    revision_notice: 'Ciò che questo sito memorizza è cambiato dalla tua ultima scelta, quindi te lo chiediamo di nuovo.',
    consent_id: 'Il tuo ID di consenso:',
    cookie_name: 'Nome',
    cookie_domain: 'Dominio',
    cookie_duration: 'Durata',
    cookie_description: 'Scopo',
    services: 'Servizi che ricevono dati:',
  },
  nl: {
    title: 'Wij respecteren je privacy',
    description:
      'Deze site gebruikt cookies en vergelijkbare opslag. Sommige zijn nodig om de site te laten werken; andere helpen ons bezoeken te meten, je instellingen te onthouden of passende advertenties te tonen, en worden alleen gebruikt als je daarmee instemt.',
    accept_all: 'Alles accepteren',
    reject_all: 'Alles weigeren',
    manage: 'Voorkeuren beheren',
    save: 'Voorkeuren opslaan',
    preferences_title: 'Privacyvoorkeuren',
    preferences_description:
      'Kies welke soorten opslag deze site mag gebruiken. Noodzakelijke staan altijd aan. Je kunt je keuze op elk moment wijzigen.',
    close: 'Sluiten',
    privacy_policy: 'Privacybeleid',
    gpc_notice: 'Je browser stuurde een Global Privacy Control-signaal, dus marketing blijft uit tenzij je het zelf aanzet.',
    revision_notice: 'Wat deze site opslaat is veranderd sinds je laatste keuze, daarom vragen we het opnieuw.',
    consent_id: 'Je toestemmings-ID:',
    cookie_name: 'Naam',
    cookie_domain: 'Domein',
    cookie_duration: 'Duur',
    cookie_description: 'Doel',
    services: 'Diensten die gegevens ontvangen:',
  },
};
