import { Sections, UsNat } from '@iabgpp/cmpapi';

/**
 * What the banner says in the IAB's US sections, by the fields' names in `@iabgpp/cmpapi` (each
 * section has its own set). In an opt-out region: the notices of sale, sharing, targeted advertising
 * and processing were given (1); the visitor opted out of sale, sharing and targeted advertising (1)
 * after opting out or with Global Privacy Control, else did not (2); `Gpc` as the browser sent it,
 * in the sections that carry it. Everything else keeps the library's "not applicable" (0): the banner
 * offers no choice about sensitive data, known children's data or further processing. The site is
 * not declared a Covered Transaction of the IAB's Multi-State Privacy Agreement
 * (`MspaCoveredTransaction` 2, its modes 0): Consentry cannot know that a site signed it.
 */

const YES = 1;
const NO = 2;
const NOTICES = new Set(['SharingNotice', 'SaleOptOutNotice', 'SharingOptOutNotice', 'TargetedAdvertisingOptOutNotice', 'ProcessingNotice']);
const OPT_OUTS = new Set(['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut']);

/** The visitor's standing in an opt-out region. */
export interface UsChoice {
  optedOut: boolean;
  gpc: boolean;
}

/** What both the library's `CmpApi` and its `GppModel` offer for writing a section. */
export interface SectionWriter {
  setFieldValue(section: string, field: string, value: unknown): void;
  getSection(section: string): Record<string, unknown> | null;
}

/**
 * The sections for a visitor in `region` (ISO 3166-2, `US-CA`): `usnat`, and the state's own where
 * the IAB defines one (`usca`); `usnat` alone for a state without one, or an unknown state.
 */
export function usSections(region: string | null): string[] {
  const state = /^US-([A-Z]{2})$/.exec(region ?? '')?.[1];
  const own = state ? `us${state.toLowerCase()}` : '';
  return own && own !== UsNat.NAME && Sections.SECTION_ORDER.includes(own) ? [UsNat.NAME, own] : [UsNat.NAME];
}

/** The section's id in the GPP registry (`usnat` 7, `usca` 8). */
export function sectionId(section: string): number {
  for (const [id, name] of Sections.SECTION_ID_NAME_MAP) if (name === section) return id;
  throw new Error(`no GPP section ${section}`);
}

/** Writes the choice into `section`, creating it; again after a change. */
export function writeSection(writer: SectionWriter, section: string, choice: UsChoice): void {
  // Every US section has this field: setting it creates the section, whose fields are then known.
  writer.setFieldValue(section, 'MspaCoveredTransaction', NO);
  for (const field of Object.keys(writer.getSection(section) ?? {})) {
    if (NOTICES.has(field)) writer.setFieldValue(section, field, YES);
    else if (OPT_OUTS.has(field)) writer.setFieldValue(section, field, choice.optedOut || choice.gpc ? YES : NO);
    else if (field === 'Gpc') writer.setFieldValue(section, field, choice.gpc);
  }
}
