import { useState } from 'preact/hooks';
import { must } from './api/client';
import { api } from './session';
import { Field, TextArea, text, useLoad } from './ui';

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** `de` → `German`, `de-CH` → `Swiss High German`; a code the browser cannot name stays a code. */
export const languageName = (code: string) => languageNames.of(code) ?? code;

/**
 * The languages the account's own texts are translated into: every one its banner speaks but the
 * account's default language (the banner settings give it first).
 */
export function useOtherLanguages() {
  return useLoad(() => must(api.GET('/api/v1/banner')).then((r) => r.data.languages.slice(1)), []);
}

type Texts = Record<string, Partial<Record<string, string>>>;
/** A text a record has in other languages: its key, its label, and whether it takes several lines. */
export type TranslatedText = [key: string, label: string, long?: boolean];

const fieldName = (code: string, key: string) => `translation ${code} ${key}`;

/**
 * A record's texts in each other language the banner speaks, one group per language, folded away
 * unless one is written. An empty field shows the visitor the text in the default language. Folded,
 * the fields are not in the form at all, and the record's texts in other languages are not sent.
 */
export function TranslationFields({ languages, texts, current }: { languages: string[]; texts: TranslatedText[]; current?: Texts }) {
  const [open, setOpen] = useState(() => Object.values(current ?? {}).some((texts) => Object.values(texts).some(Boolean)));
  if (languages.length === 0) return null;
  return (
    <details class="translations" open={open} onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
      <summary>In other languages ({languages.map(languageName).join(', ')})</summary>
      <p class="hint">Visitors whose language is one of these see these words in the banner; an empty field shows them the text above.</p>
      {open && languages.map((code) => (
        <fieldset key={code}>
          <legend>{languageName(code)}</legend>
          {texts.map(([key, label, long]) => {
            const props = { label: `${label} in ${languageName(code)}`, name: fieldName(code, key), defaultValue: current?.[code]?.[key] ?? '', lang: code };
            return long ? <TextArea key={key} {...props} /> : <Field key={key} {...props} />;
          })}
        </fieldset>
      ))}
    </details>
  );
}

/**
 * What the fields hold, as the API takes it: every text of every language shown, an empty one null
 * (none); undefined when they were folded away (nothing to change).
 */
export function translationsOf(data: FormData, languages: string[], texts: TranslatedText[]): Record<string, Record<string, string | null>> | undefined {
  const shown = languages.filter((code) => data.has(fieldName(code, texts[0][0])));
  if (shown.length === 0) return undefined;
  return Object.fromEntries(shown.map((code) => [code, Object.fromEntries(texts.map(([key]) => [key, text(data, fieldName(code, key)) || null]))]));
}
