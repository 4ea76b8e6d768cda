import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, must } from '../api/client';
import type { paths } from '../api/schema';
import { api } from '../session';
import type { LanguageSource } from '../../../banner/src/config';
import { chooseLanguage } from '../../../banner/src/text';
import { BUILT_IN_LANGUAGES, TRANSLATIONS, type BuiltInLanguage, type TextKey } from '../../../banner/src/translations';
import { SCRIPT_REACHES_VISITORS } from '../../../src/modules/widget/script-max-age';
import { languageName } from '../translations';
import { Checkbox, ErrorNote, Field, Form, Loading, Notice, Page, Select, messagesOf, text, useLoad } from '../ui';
import { PreviewPlace, RegionsFieldset, draftOf, placeOfCode, problemsOf, regionalChangesOf, type RegionalDraft, type RegionalProblems } from './regions';
import { TcfSection } from './tcf';

type Changes = paths['/api/v1/banner']['patch']['requestBody']['content']['application/json']['banner'];
type Layout = NonNullable<Changes['layout']>;
type Position = NonNullable<Changes['position']>;

const LAYOUTS: [Layout, string][] = [['box', 'Box'], ['bar', 'Bar across the page'], ['cloud', 'Cloud']];
const POSITIONS: Position[] = ['bottom right', 'bottom left', 'bottom center', 'bottom', 'top', 'middle', 'middle center', 'top right', 'top left', 'top center'];
const COLOURS = [['background', 'Background colour'], ['text', 'Text colour'], ['primary', 'Button colour'], ['primary_text', 'Button text colour']] as const;
/** Every text of the banner, labelled; the first four are shown, the others under "More texts". */
const TEXTS: [TextKey, string][] = [
  ['title', 'Title'], ['description', 'Text'], ['accept_all', '"Accept all" button'], ['reject_all', '"Reject all" button'],
  ['manage', '"Manage preferences" button'], ['save', '"Save preferences" button'], ['preferences_title', 'Title of the preferences'],
  ['preferences_description', 'Text of the preferences'], ['close', '"Close" button'], ['privacy_policy', 'Privacy policy link'],
  ['services', 'Before the services of a category'], ['cookie_name', 'Cookie table: name'], ['cookie_domain', 'Cookie table: domain'],
  ['cookie_duration', 'Cookie table: duration'], ['cookie_description', 'Cookie table: purpose'],
  ['gpc_notice', 'Notice to a browser sending Global Privacy Control'], ['revision_notice', 'Notice when asking again after a change'],
  ['consent_id', 'Before the visitor\'s consent ID'],
  ['do_not_sell', 'Opt-out regions: "Do Not Sell or Share" link'], ['opt_out_description', 'Opt-out regions: text of the notice'],
  ['opt_out_done', 'Opt-out regions: after opting out'], ['gpc_opt_out', 'Opt-out regions: Global Privacy Control honoured'],
  ['notice_description', 'Notice regions: text of the notice'], ['dismiss', 'Notice regions: button closing the notice'],
];
const MAIN_TEXTS = TEXTS.slice(0, 4);
const MORE_TEXTS = TEXTS.slice(4);
/** The orders of the language sources the editor offers; the account's language is always the last resort. */
const SOURCE_ORDERS: [string, string][] = [
  ['browser,page,default', "The visitor's browser, then the page's language (recommended)"],
  ['page,browser,default', "The page's language, then the visitor's browser"],
  ['browser,default', "The visitor's browser only"],
  ['page,default', "The page's language only"],
  ['default', "Always the account's language"],
];
/** Languages a visitor may ask for in the example: those with built-in words, and two more that an account rarely speaks. */
const EXAMPLE_LANGUAGES = [...BUILT_IN_LANGUAGES, 'pl', 'ja'];
const codesOf = (value: string) => value.split(/[\s,]+/).filter(Boolean);
/** Where the preview's visitor is, until another place is chosen. */
const FIRST_PLACE = 'DE';
/** Typing pauses this long before the preview is built again. */
const PREVIEW_DELAY_MS = 400;

type Texts = Record<string, string | null>;

/** The texts the form shows (those of one language); an empty one is null, the built-in words. */
const textsOf = (form: HTMLFormElement): Texts => {
  const data = new FormData(form);
  return Object.fromEntries(TEXTS.map(([key]) => [key, text(data, `text_${key}`) || null]));
};

/**
 * The settings a form holds, in the shape PATCH /banner takes. The texts of the language shown, and
 * those typed in other languages before switching (`drafts`), go when one is filled in or the
 * account has texts of its own there to clear (`stored`): an emptied one is null, the built-in words
 * again. A language the account never wrote in is not sent, nor the languages it speaks unless changed
 * (`spoken`: as they were shown), so that an account that never chose them keeps the default ones.
 */
function changesOf(form: HTMLFormElement, language: string, drafts: Record<string, Texts>, stored: (language: string) => boolean, spoken: string): Changes {
  const data = new FormData(form);
  const languages = text(data, 'languages');
  const all = { ...drafts, [language]: textsOf(form) };
  const translations = Object.fromEntries(Object.entries(all)
    .filter(([code, texts]) => stored(code) || Object.values(texts).some((value) => value !== null)));
  return {
    layout: text(data, 'layout') as Layout,
    position: text(data, 'position') as Position,
    theme: Object.fromEntries(COLOURS.map(([key]) => [key, text(data, key) || null])),
    privacy_policy_url: text(data, 'privacy_policy_url') || null,
    show_reject_all: data.get('show_reject_all') === 'on',
    language_sources: codesOf(text(data, 'language_sources')) as LanguageSource[],
    ...(languages !== spoken && { languages: codesOf(languages) }),
    ...(Object.keys(translations).length > 0 && { translations }),
  };
}

/**
 * "A visitor whose browser asks for German on a page marked English sees: German", for any two
 * languages, as the banner decides it with the settings in the form.
 */
function LanguageExample({ spoken, sources, defaultLanguage }: { spoken: string[]; sources: LanguageSource[]; defaultLanguage: string }) {
  const choices = [...new Set([...spoken, ...EXAMPLE_LANGUAGES])].map((code): [string, string] => [code, languageName(code)]);
  const [browser, setBrowser] = useState(spoken.find((code) => code !== defaultLanguage) ?? 'de');
  const [page, setPage] = useState(defaultLanguage);
  const seen = chooseLanguage(spoken, sources, { browser: [browser], page: [page], default: [defaultLanguage] });
  const pick = (set: (value: string) => void) => (event: Event) => set((event.currentTarget as HTMLSelectElement).value);
  return (
    <div class="example" role="group" aria-label="Which language a visitor sees">
      <Select label="A visitor whose browser asks for" value={browser} onInput={pick(setBrowser)} options={choices} />
      <Select label="on a page marked" value={page} onInput={pick(setPage)} options={choices} />
      <p aria-live="polite">A visitor whose browser asks for {languageName(browser)} on a page marked {languageName(page)} sees: <strong>{languageName(seen)}</strong></p>
    </div>
  );
}

/**
 * The banner's look and words, with a live preview: the real banner script, built by the server
 * from the unsaved settings, running in a sandboxed frame (`/banner-preview.html`).
 */
export function BannerPage({ accountId }: { accountId: string }) {
  const banner = useLoad(() => must(api.GET('/api/v1/banner')).then((r) => r.data), [accountId]);
  const account = useLoad(() => must(api.GET('/api/v1/accounts/{id}', { params: { path: { id: accountId } } })), [accountId]);
  const form = useRef<HTMLFormElement>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  const [script, setScript] = useState<string>();
  const [previewError, setPreviewError] = useState<unknown>();
  const [saved, setSaved] = useState<string>();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [chosen, setChosen] = useState<string>();
  // The language settings as typed, for the example of what a visitor sees.
  const [typed, setTyped] = useState<{ sources: string; spoken: string }>();
  const language = chosen ?? account.data?.default_language ?? 'en';
  const stored = (code: string) => banner.data?.translations[code] !== undefined;
  // What was typed in a language before switching to another: kept, shown again and saved.
  const drafts = useRef<Record<string, Texts>>({});
  // The regional rules as edited, from the settings saved each time they are (re)loaded.
  const [regional, setRegional] = useState<RegionalDraft>();
  useEffect(() => { if (banner.data) setRegional(draftOf(banner.data)); }, [banner.data]);
  const [saveError, setSaveError] = useState<unknown>();
  const [place, setPlace] = useState(FIRST_PLACE);
  // The code the preview's banner is given on its script tag; none while what is typed is no place.
  const region = placeOfCode(place) ? place.trim().toUpperCase() : undefined;

  // The language shown when the timer fires, not when it was set: changing the language first
  // fires the old render's handler. Only the newest request's answer is shown, whatever order the
  // answers come back in.
  const spoken = banner.data?.languages.join(', ') ?? '';
  const shown = useRef({ language, stored, spoken, regional, settings: banner.data });
  shown.current = { language, stored, spoken, regional, settings: banner.data };
  const asked = useRef(0);
  const preview = () => {
    if (form.current) {
      const data = new FormData(form.current);
      setTyped({ sources: text(data, 'language_sources'), spoken: text(data, 'languages') });
    }
    clearTimeout(timer.current);
    timer.current = setTimeout(async () => {
      if (!form.current) return;
      const ticket = ++asked.current;
      const { regional: draft, settings: saved } = shown.current;
      const changes = {
        ...changesOf(form.current, shown.current.language, drafts.current, shown.current.stored, shown.current.spoken),
        ...(draft && saved && regionalChangesOf(draft, saved)),
      };
      try {
        const built = await must(api.POST('/api/v1/banner/preview', { body: { banner: changes }, parseAs: 'text' }));
        if (ticket !== asked.current) return;
        setPreviewError(undefined);
        setScript(built as unknown as string);
      } catch (caught) {
        if (ticket === asked.current) setPreviewError(caught);
      }
    }, PREVIEW_DELAY_MS);
  };
  // A new script needs a fresh page: the frame reloads, says it is ready, and is sent the script.
  useEffect(() => {
    if (!script || !frame.current) return;
    const target = frame.current;
    const onMessage = (event: MessageEvent) => {
      if (event.source === target.contentWindow && event.data?.previewReady) target.contentWindow!.postMessage({ script, language, region }, '*');
    };
    window.addEventListener('message', onMessage);
    target.src = `/banner-preview.html?${Date.now()}`;
    return () => window.removeEventListener('message', onMessage);
  }, [script, language, region]);
  useEffect(() => { if (banner.data && account.data) preview(); }, [banner.data, account.data, language]);

  if (banner.error || account.error) return <Page title="Banner"><ErrorNote error={banner.error ?? account.error} /></Page>;
  if (!banner.data || !account.data || !regional) return <Loading what="the banner" />;
  const settings = banner.data;
  const own = settings.translations[language] ?? {};
  const languages = settings.languages;
  const sourceOrder = settings.language_sources.join();
  const sourceOrders = SOURCE_ORDERS.some(([value]) => value === sourceOrder) ? SOURCE_ORDERS : [...SOURCE_ORDERS, [sourceOrder, sourceOrder.replace(/,/g, ', ')] as [string, string]];
  const shownTexts = drafts.current[language] ?? own;
  // The built-in words in that language (or its base language, else English) show where a text is empty.
  const builtIn = TRANSLATIONS[([language, language.split('-')[0]].find((code) => code in TRANSLATIONS) ?? 'en') as BuiltInLanguage];
  const textField = ([key, label]: [TextKey, string]) => (
    <Field key={`${language} ${key}`} label={label} name={`text_${key}`} defaultValue={shownTexts[key] ?? ''} placeholder={builtIn[key]} hint="Empty: the built-in words." />
  );
  // The API's problems with the regional settings, said beside their fields: those of a refused save,
  // else those the preview's check found as they were typed.
  const saveProblems = problemsOf(saveError);
  const previewProblems = problemsOf(previewError);
  const regionProblems: RegionalProblems = saveError ? saveProblems : previewProblems;
  const previewRegional = previewProblems.rules.length + previewProblems.defaultMode.length + previewProblems.consentMode.length > 0;
  const editRegional = (draft: RegionalDraft) => {
    setRegional(draft);
    setSaveError(undefined);
    preview();
  };
  return (
    <Page title="Banner">
      <p>How the consent banner looks, what it says in each language, and which banner visitors get where they are.
        The preview shows the banner your visitors will get once you save, in the language and the place chosen beside it.</p>
      <div class="banner-editor">
        <div onInput={preview} onChange={preview}>
          <Form submit="Save banner" label="Banner settings" onSubmit={async (_data, element) => {
            setSaved(undefined);
            setSaveError(undefined);
            try {
              await must(api.PATCH('/api/v1/banner', { body: { banner: { ...changesOf(element, language, drafts.current, stored, spoken), ...regionalChangesOf(regional, settings) } } }));
            } catch (caught) {
              const problems = problemsOf(caught);
              if (problems.other.length === messagesOf(caught).length) throw caught;
              setSaveError(caught);
              throw new ApiError(422, [...problems.other, 'The banner was not saved: see the problems under Regions.']);
            }
            drafts.current = {};
            setTyped(undefined);
            setSaved(`The banner was saved. Websites get it ${SCRIPT_REACHES_VISITORS}.`);
            banner.reload();
          }}>
            <div ref={(element) => { form.current = element?.closest('form') ?? null; }} />
            <Select label="Layout" name="layout" defaultValue={settings.layout} options={LAYOUTS} />
            <Select label="Position" name="position" defaultValue={settings.position} options={POSITIONS.map((p) => [p, p])} />
            <fieldset>
              <legend>Languages</legend>
              <Field label="Languages the banner speaks" name="languages" defaultValue={spoken} key={spoken}
                hint={`Language codes separated by commas, e.g. en, de, fr-CH. The account's language (${account.data.default_language}) is always among them.`} />
              <Select label="The visitor's language is taken from" name="language_sources" defaultValue={sourceOrder} options={sourceOrders} />
              <LanguageExample spoken={[account.data.default_language, ...codesOf(typed?.spoken ?? spoken)]} defaultLanguage={account.data.default_language}
                sources={codesOf(typed?.sources ?? sourceOrder) as LanguageSource[]} />
            </fieldset>
            {/* `input`, not `change`: the preview's re-render between the two would set the select back. */}
            <Select label="Language of the texts" name="language" value={language} onInput={(event) => {
              if (form.current) drafts.current[language] = textsOf(form.current);
              setChosen((event.currentTarget as HTMLSelectElement).value);
            }}
              options={languages.map((code) => [code, `${languageName(code)} (${code})`])} />
            {MAIN_TEXTS.map(textField)}
            <details key={language} open={MORE_TEXTS.some(([key]) => shownTexts[key])}>
              <summary>More texts</summary>
              {MORE_TEXTS.map(textField)}
            </details>
            {COLOURS.map(([key, label]) => (
              <Field key={key} label={label} name={key} defaultValue={settings.theme[key] ?? ''} placeholder="#1a73e8" pattern="#[0-9a-fA-F]{3,8}" />
            ))}
            <Field label="Privacy policy address" name="privacy_policy_url" type="url" defaultValue={settings.privacy_policy_url ?? ''} />
            <Checkbox label='Show a "Reject all" button' name="show_reject_all" defaultChecked={settings.show_reject_all} />
            <RegionsFieldset settings={settings} draft={regional} onDraft={editRegional} problems={regionProblems}
              onRestored={() => { setSaveError(undefined); setSaved('The shipped regional rules and default mode were restored.'); banner.reload(); }} />
          </Form>
          {saved && <Notice>{saved}</Notice>}
          <TcfSection settings={settings} onSaved={() => banner.reload()} />
        </div>
        <section class="card preview" aria-label="Preview">
          <h2>Preview</h2>
          <PreviewPlace code={place} onCode={setPlace} draft={regional} />
          {previewRegional
            ? <p class="note">The preview shows the banner again once the problems under Regions are put right.</p>
            : <ErrorNote error={previewError} />}
          <iframe ref={frame} title="Banner preview" sandbox="allow-scripts" />
        </section>
      </div>
    </Page>
  );
}
