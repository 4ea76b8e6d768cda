import { useState } from 'preact/hooks';
import { must } from '../api/client';
import type { paths } from '../api/schema';
import { api } from '../session';
import { GeoAttribution, MODE_LABELS, MODE_MEANINGS, MODES, countryName, type Mode } from '../places';
import { Checkbox, ErrorNote, Select, messagesOf } from '../ui';
import { canonicalLocation, canonicalRegion, regionCovers, REGION_GROUPS } from '../../../src/geo/regions';
import { modeFor, parseRegionalRules } from '../../../src/geo/regional-rules';

type Settings = paths['/api/v1/banner']['get']['responses'][200]['content']['application/json']['data'];
type Changes = paths['/api/v1/banner']['patch']['requestBody']['content']['application/json']['banner'];
type ConsentModeOptions = Settings['consent_mode'];

/**
 * The regional settings as edited: each rule's regions as typed (codes separated by commas), its
 * mode, and a key of its own so that moving a rule moves its fields, focus included.
 */
export interface RegionalDraft {
  rules: { key: number; regions: string; mode: Mode }[];
  defaultMode: Mode;
  consentMode: ConsentModeOptions;
}

let nextKey = 0;
const codesOf = (value: string) => value.split(/[\s,]+/).filter(Boolean);

export function draftOf(settings: Settings): RegionalDraft {
  return {
    rules: settings.regional_rules.map((rule) => ({ key: ++nextKey, regions: rule.regions.join(', '), mode: rule.mode })),
    defaultMode: settings.default_mode,
    consentMode: { ...settings.consent_mode },
  };
}

const rulesOf = (draft: RegionalDraft) => draft.rules.map((rule) => ({ regions: codesOf(rule.regions), mode: rule.mode }));

/**
 * What of the draft differs from the settings saved, in the shape PATCH /banner takes. Rules left as
 * they were are not sent: an account on the shipped defaults stays on them (and follows their
 * updates, a US state law coming into force) until it changes one.
 */
export function regionalChangesOf(draft: RegionalDraft, settings: Settings): Partial<Changes> {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const rules = rulesOf(draft);
  const saved = settings.regional_rules.map((rule) => ({ regions: rule.regions, mode: rule.mode }));
  return {
    ...(!same(rules, saved) && { regional_rules: rules }),
    ...(draft.defaultMode !== settings.default_mode && { default_mode: draft.defaultMode }),
    ...(!same(draft.consentMode, settings.consent_mode) && { consent_mode: draft.consentMode }),
  };
}

/** The API's 422 sentences about the regional settings, by the field each is about; the rest apart. */
export interface RegionalProblems { rules: string[]; defaultMode: string[]; consentMode: string[]; other: string[] }

export function problemsOf(error: unknown): RegionalProblems {
  const found: RegionalProblems = { rules: [], defaultMode: [], consentMode: [], other: [] };
  if (!error) return found;
  for (const message of messagesOf(error)) {
    if (message.startsWith('Regional rules')) found.rules.push(message);
    else if (message.startsWith('Default mode')) found.defaultMode.push(message);
    else if (/^(Consent mode|Ads data redaction|Url passthrough)/.test(message)) found.consentMode.push(message);
    else found.other.push(message);
  }
  return found;
}

/** A field's problems, said beside it and tied to it for screen readers. */
function Problems({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return <ul class="problems" id={id} role="alert">{messages.map((m) => <li key={m}>{m}</li>)}</ul>;
}

const GROUP_HINTS: [string, string][] = [
  ['EEA', 'the European Economic Area: the EU, Iceland, Liechtenstein and Norway'],
  ['EU', 'the 27 member states of the European Union'],
  ['US', 'the United States: every state'],
  ['US-PRIVACY-STATES', 'the US states whose comprehensive privacy law is in force'],
];
const MODE_OPTIONS = MODES.map((mode): [string, string] => [mode, MODE_LABELS[mode]]);

/**
 * The regions part of the banner editor: which mode a visitor gets where, as an ordered list of
 * rules (the first that covers the visitor wins) and a default mode, Google Consent Mode's options,
 * and a way back to the shipped defaults. Saved with the rest of the banner; "Restore the defaults"
 * saves at once. Its fields answer `input`, not `change`: the editor re-renders on every input (the
 * preview), and a checkbox or a select re-rendered between its input and change events is set back.
 */
export function RegionsFieldset({ settings, draft, onDraft, problems, onRestored }: {
  settings: Settings; draft: RegionalDraft; onDraft: (draft: RegionalDraft) => void; problems: RegionalProblems;
  onRestored: (settings: Settings) => void;
}) {
  const [restoring, setRestoring] = useState(false);
  const [restoreError, setRestoreError] = useState<unknown>();
  const edited = Object.keys(regionalChangesOf(draft, settings)).some((key) => key !== 'consent_mode');
  const setRule = (index: number, change: Partial<RegionalDraft['rules'][number]>) =>
    onDraft({ ...draft, rules: draft.rules.map((rule, i) => (i === index ? { ...rule, ...change } : rule)) });
  const move = (index: number, by: number) => {
    const rules = [...draft.rules];
    [rules[index], rules[index + by]] = [rules[index + by], rules[index]];
    onDraft({ ...draft, rules });
    // The button pressed may now be disabled (the rule reached an end): the focus follows the rule.
    requestAnimationFrame(() => document.getElementById(`rule-${rules[index + by].key}-regions`)?.focus());
  };
  const restore = async () => {
    if (restoring || !confirm('Restore the shipped regional rules and default mode? Your own rules are replaced.')) return;
    setRestoring(true);
    setRestoreError(undefined);
    try {
      const { data } = await must(api.PATCH('/api/v1/banner', { body: { banner: { regional_rules: null, default_mode: null } } }));
      onRestored(data);
    } catch (caught) {
      setRestoreError(caught);
    } finally {
      setRestoring(false);
    }
  };
  const invalid = (messages: string[]) => (messages.length > 0 ? true : undefined);
  return (
    <fieldset class="regions" aria-describedby="regions-explained">
      <legend>Regions</legend>
      <p class="hint" id="regions-explained">Which banner a visitor gets depends on where they are. The rules are tried in order
        and the first that covers the visitor's place applies; a visitor no rule covers, or whose place is not known, gets the default mode.</p>
      <p class="note warning legal"><strong>This is not legal advice.</strong> The shipped rules are a starting point: which law
        applies to your website, and what it asks of you, depends on your business. Check with your own counsel.</p>
      {!settings.regional_rules_customised && (
        <p class="note" role="status">{edited
          ? 'The shipped defaults apply until you save these rules.'
          : 'The shipped defaults apply: opt-in in the EEA, the United Kingdom and Switzerland, opt-out in the US states with a privacy law in force. They follow the updates of new versions (a state law coming into force) until you change them.'}</p>
      )}
      <ol class="rules">
        {draft.rules.map((rule, index) => {
          const id = `rule-${rule.key}`;
          const name = `rule ${index + 1}`;
          return (
            <li key={rule.key} class="rule">
              <div class="field">
                <label for={`${id}-regions`}>Regions of rule {index + 1}</label>
                <input id={`${id}-regions`} value={rule.regions} aria-invalid={invalid(problems.rules)}
                  aria-describedby={`regions-codes${problems.rules.length > 0 ? ' regions-problems' : ''}`}
                  onInput={(event) => setRule(index, { regions: (event.currentTarget as HTMLInputElement).value })} />
              </div>
              <Select label={`Mode of rule ${index + 1}`} value={rule.mode} options={MODE_OPTIONS}
                onInput={(event: Event) => setRule(index, { mode: (event.currentTarget as HTMLSelectElement).value as Mode })} />
              <div class="actions rule-actions">
                <button type="button" aria-label={`Move ${name} up`} disabled={index === 0} onClick={() => move(index, -1)}>Up</button>
                <button type="button" aria-label={`Move ${name} down`} disabled={index === draft.rules.length - 1} onClick={() => move(index, 1)}>Down</button>
                <button type="button" class="danger" aria-label={`Remove ${name}`}
                  onClick={() => onDraft({ ...draft, rules: draft.rules.filter((_, i) => i !== index) })}>Remove</button>
              </div>
            </li>
          );
        })}
      </ol>
      {draft.rules.length === 0 && <p>No rules: every visitor gets the default mode.</p>}
      <Problems id="regions-problems" messages={problems.rules} />
      <div class="hint" id="regions-codes">
        <p class="hint">Codes separated by commas: a country (DE, GB, BR), a subdivision (US-CA, CA-QC), or a group:</p>
        <ul>{GROUP_HINTS.map(([code, words]) => <li key={code}><code>{code}</code>: {words}{code === 'US-PRIVACY-STATES' && <>, today {REGION_GROUPS[code](new Date()).join(', ')}</>}</li>)}</ul>
      </div>
      <div class="actions">
        <button type="button" onClick={() => onDraft({ ...draft, rules: [...draft.rules, { key: ++nextKey, regions: '', mode: 'opt-in' }] })}>Add a rule</button>
      </div>
      <ul class="hint modes">{MODES.map((mode) => <li key={mode}><strong>{MODE_LABELS[mode].split(':')[0]}</strong>: {MODE_MEANINGS[mode]}.</li>)}</ul>
      <Select label="Default mode" value={draft.defaultMode} options={MODE_OPTIONS} aria-invalid={invalid(problems.defaultMode)}
        aria-describedby={problems.defaultMode.length > 0 ? 'default-mode-problems' : undefined}
        onInput={(event: Event) => onDraft({ ...draft, defaultMode: (event.currentTarget as HTMLSelectElement).value as Mode })} />
      <Problems id="default-mode-problems" messages={problems.defaultMode} />
      <div class="actions">
        <button type="button" onClick={restore} aria-disabled={restoring}>
          {restoring ? 'Restoring…' : 'Restore the defaults'}</button>
      </div>
      <ErrorNote error={restoreError} />
      <fieldset>
        <legend>Google Consent Mode</legend>
        <Checkbox label="Redact ad click identifiers while advertising storage is denied (ads_data_redaction)" checked={draft.consentMode.ads_data_redaction}
          onInput={(event) => onDraft({ ...draft, consentMode: { ...draft.consentMode, ads_data_redaction: (event.currentTarget as HTMLInputElement).checked } })} />
        <Checkbox label="Pass ad click information in links while storage is denied (url_passthrough)" checked={draft.consentMode.url_passthrough}
          onInput={(event) => onDraft({ ...draft, consentMode: { ...draft.consentMode, url_passthrough: (event.currentTarget as HTMLInputElement).checked } })} />
        <Problems id="consent-mode-problems" messages={problems.consentMode} />
      </fieldset>
    </fieldset>
  );
}

/** Places a site owner often asks about; any other code can be typed. */
const PLACES = ['DE', 'FR', 'GB', 'CH', 'US-CA', 'US-TX', 'US-VA', 'US-NY', 'CA', 'BR', 'JP', 'IN', 'AU'];

/** `US-CA` → the visitor's location as the banner reads a page's `data-region`; null when it is no place. */
export function placeOfCode(code: string): { country: string; region: string | null } | null {
  const typed = code.trim().toUpperCase();
  if (!/^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(typed) || canonicalRegion(typed) === null) return null;
  const location = canonicalLocation(typed.slice(0, 2), typed.length > 2 ? typed : null);
  return location.country === null ? null : { country: location.country, region: location.region };
}

/**
 * The place the preview's visitor is in, and the mode the rules as edited give them there: the
 * preview's banner is given the same code on its script tag (`data-region`).
 */
export function PreviewPlace({ code, onCode, draft }: { code: string; onCode: (code: string) => void; draft: RegionalDraft }) {
  const place = placeOfCode(code);
  const { rules, problems } = parseRegionalRules(rulesOf(draft));
  const known = place !== null && problems.length === 0;
  // The first rule covering the place, as the banner and the service decide it.
  const now = new Date();
  const ruleIndex = known ? rules.findIndex((rule) => rule.regions.some((region) => regionCovers(region, place, now))) : -1;
  const mode = known ? modeFor(place, rules, draft.defaultMode, now) : undefined;
  return (
    <div class="preview-place">
      <div class="field">
        <label for="preview-region">Preview as a visitor in</label>
        <input id="preview-region" list="preview-regions" value={code} aria-describedby="preview-region-says"
          onInput={(event) => onCode((event.currentTarget as HTMLInputElement).value)} />
        <datalist id="preview-regions">{PLACES.map((p) => <option key={p} value={p}>{placeLabel(p)}</option>)}</datalist>
      </div>
      <p id="preview-region-says" aria-live="polite">{!place
        ? 'Type a country (DE) or a US state (US-CA).'
        : mode === undefined
          ? `${placeLabel(code)}: the rules above have a problem.`
          : <>{placeLabel(code)}: <strong>{MODE_LABELS[mode]}</strong> ({ruleIndex >= 0 ? `rule ${ruleIndex + 1}` : 'the default mode'})</>}</p>
      <GeoAttribution />
    </div>
  );
}

/** `US-CA` → `United States (US-CA)`, `DE` → `Germany (DE)`. */
function placeLabel(code: string): string {
  const typed = code.trim().toUpperCase();
  return `${countryName(typed.slice(0, 2))} (${typed})`;
}
