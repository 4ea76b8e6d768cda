/**
 * The banner's own words in the languages it ships with, written for this project. An account may
 * override any text per language (`PATCH /api/v1/banner`); what it leaves out comes from here, then
 * from English.
 *
 * In English the banner's buttons read exactly "Accept all", "Reject all" and "Manage preferences",
 * and the modal's "Save preferences": scanners look for them by these names. The link of opt-out
 * regions reads "Do Not Sell or Share My Personal Information", the title California's law gives
 * it (Cal. Civ. Code § 1798.135).
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
  'do_not_sell',
  'opt_out_description',
  'opt_out_done',
  'gpc_opt_out',
  'notice_description',
  'dismiss',
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
    do_not_sell: 'Do Not Sell or Share My Personal Information',
    opt_out_description:
      'We and our partners use cookies and similar storage to run this site, measure visits and show ads that may interest you. Some of this may count as selling or sharing your personal information, or as targeted advertising. You can opt out at any time.',
    opt_out_done:
      'You have opted out of the sale and sharing of your personal information and of targeted advertising. Your choice is kept in this browser.',
    gpc_opt_out:
      'Your browser sent a Global Privacy Control signal. We have honoured it as your request to opt out of the sale and sharing of your personal information and of targeted advertising.',
    notice_description:
      'This site uses cookies and similar storage: some are needed for it to work; others measure visits, remember your settings or show relevant ads. You can see them all and change your choice at any time in the preferences.',
    dismiss: 'Got it',
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
    do_not_sell: 'Meine personenbezogenen Daten nicht verkaufen oder weitergeben',
    opt_out_description:
      'Wir und unsere Partner nutzen Cookies und ähnliche Speicher, um diese Website zu betreiben, Besuche zu messen und Werbung zu zeigen, die Sie interessieren könnte. Manches davon kann als Verkauf oder Weitergabe Ihrer personenbezogenen Daten oder als zielgerichtete Werbung gelten. Sie können dem jederzeit widersprechen.',
    opt_out_done:
      'Sie haben dem Verkauf und der Weitergabe Ihrer personenbezogenen Daten und zielgerichteter Werbung widersprochen. Ihre Wahl bleibt in diesem Browser gespeichert.',
    gpc_opt_out:
      'Ihr Browser sendet das Signal „Global Privacy Control“. Wir haben es als Ihren Widerspruch gegen den Verkauf und die Weitergabe Ihrer personenbezogenen Daten und gegen zielgerichtete Werbung umgesetzt.',
    notice_description:
      'Diese Website verwendet Cookies und ähnliche Speicher: Einige braucht sie, um zu funktionieren; andere messen Besuche, behalten Ihre Einstellungen oder zeigen passende Werbung. In den Einstellungen sehen Sie alle und können Ihre Wahl jederzeit ändern.',
    dismiss: 'Verstanden',
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
    do_not_sell: 'Ne pas vendre ni partager mes informations personnelles',
    opt_out_description:
      'Nos partenaires et nous utilisons des cookies et des stockages similaires pour faire fonctionner ce site, mesurer les visites et afficher des publicités susceptibles de vous intéresser. Une partie de ces usages peut constituer une vente ou un partage de vos informations personnelles, ou de la publicité ciblée. Vous pouvez vous y opposer à tout moment.',
    opt_out_done:
      'Votre opposition à la vente et au partage de vos informations personnelles et à la publicité ciblée est enregistrée. Ce choix est conservé dans ce navigateur.',
    gpc_opt_out:
      'Votre navigateur envoie le signal Global Privacy Control. Nous l’avons appliqué comme votre demande d’opposition à la vente et au partage de vos informations personnelles et à la publicité ciblée.',
    notice_description:
      'Ce site utilise des cookies et des stockages similaires : certains sont indispensables à son fonctionnement ; d’autres mesurent les visites, retiennent vos réglages ou affichent des publicités adaptées. Vous pouvez tous les consulter et changer d’avis à tout moment dans vos préférences.',
    dismiss: 'J’ai compris',
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
    do_not_sell: 'No vender ni compartir mi información personal',
    opt_out_description:
      'Nosotros y nuestros socios usamos cookies y almacenamiento similar para que este sitio funcione, medir las visitas y mostrar anuncios que pueden interesarte. Parte de ello puede considerarse venta o uso compartido de tu información personal, o publicidad dirigida. Puedes excluirte cuando quieras.',
    opt_out_done:
      'Te has excluido de la venta y el uso compartido de tu información personal y de la publicidad dirigida. Tu elección se guarda en este navegador.',
    gpc_opt_out:
      'Tu navegador envió la señal Global Privacy Control. La hemos respetado como tu solicitud de exclusión de la venta y el uso compartido de tu información personal y de la publicidad dirigida.',
    notice_description:
      'Este sitio usa cookies y almacenamiento similar: algunos son necesarios para que funcione; otros miden las visitas, recuerdan tus ajustes o muestran anuncios relevantes. Puedes verlos todos y cambiar tu elección cuando quieras en las preferencias.',
    dismiss: 'Entendido',
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
    do_not_sell: 'Non vendere né condividere le mie informazioni personali',
    opt_out_description:
      'Noi e i nostri partner usiamo cookie e archiviazione simile per far funzionare questo sito, misurare le visite e mostrare annunci che potrebbero interessarti. Parte di questo può costituire una vendita o una condivisione delle tue informazioni personali, o pubblicità mirata. Puoi opporti in qualsiasi momento.',
    opt_out_done:
      'La tua opposizione alla vendita e alla condivisione delle tue informazioni personali e alla pubblicità mirata è stata registrata. La scelta resta salvata in questo browser.',
    gpc_opt_out:
      'Il tuo browser ha inviato il segnale Global Privacy Control. Lo abbiamo rispettato come tua richiesta di opposizione alla vendita e alla condivisione delle tue informazioni personali e alla pubblicità mirata.',
    notice_description:
      'Questo sito usa cookie e archiviazione simile: alcuni servono al suo funzionamento; altri misurano le visite, ricordano le tue impostazioni o mostrano annunci pertinenti. Puoi vederli tutti e cambiare la tua scelta in qualsiasi momento nelle preferenze.',
    dismiss: 'Ho capito',
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
    do_not_sell: 'Mijn persoonsgegevens niet verkopen of delen',
    opt_out_description:
      'Wij en onze partners gebruiken cookies en vergelijkbare opslag om deze site te laten werken, bezoeken te meten en advertenties te tonen die je misschien interesseren. Een deel daarvan kan gelden als het verkopen of delen van je persoonsgegevens, of als gerichte advertenties. Je kunt je op elk moment afmelden.',
    opt_out_done:
      'Je hebt je afgemeld voor het verkopen en delen van je persoonsgegevens en voor gerichte advertenties. Je keuze blijft bewaard in deze browser.',
    gpc_opt_out:
      'Je browser stuurde een Global Privacy Control-signaal. Dat hebben we opgevolgd als je verzoek om je af te melden voor het verkopen en delen van je persoonsgegevens en voor gerichte advertenties.',
    notice_description:
      'Deze site gebruikt cookies en vergelijkbare opslag: sommige zijn nodig om de site te laten werken; andere meten bezoeken, onthouden je instellingen of tonen passende advertenties. In de voorkeuren zie je ze allemaal en kun je je keuze op elk moment wijzigen.',
    dismiss: 'Begrepen',
  },
};
