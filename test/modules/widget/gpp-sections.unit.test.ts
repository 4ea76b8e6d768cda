import { GppModel, Sections } from '@iabgpp/cmpapi';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sectionId, usSections, writeSection, type UsChoice } from '../../../banner/src/gpp-sections.ts';

/** A string as the banner writes it, read back by a fresh model of the IAB's library. */
function written(region: string | null, choice: UsChoice): GppModel {
  const model = new GppModel();
  for (const section of usSections(region)) writeSection(model, section, choice);
  return new GppModel(model.encode());
}

const US_STATE_SECTIONS = [...Sections.SECTION_ID_NAME_MAP.values()].filter((name) => /^us[a-z]{2}$/.test(name));

describe('the US sections the banner writes', () => {
  it('are usnat and the state\'s own where the IAB defines one', () => {
    expect(usSections('US-CA')).toEqual(['usnat', 'usca']);
    expect(usSections('US-TX')).toEqual(['usnat', 'ustx']);
    // Vermont's law has no section of its own in the library; New York has no such law.
    expect(usSections('US-VT')).toEqual(['usnat']);
    expect(usSections('US-NY')).toEqual(['usnat']);
    expect(usSections(null)).toEqual(['usnat']);
    expect(usSections('us-ca')).toEqual(['usnat']);
    expect([sectionId('usnat'), sectionId('usca')]).toEqual([7, 8]);
  });

  it('say "notice given" and "did not opt out" (2) for a visitor who did not opt out', () => {
    const model = written('US-CA', { optedOut: false, gpc: false });
    expect(model.getSectionIds()).toEqual([7, 8]);
    expect(model.getSection('usnat')).toMatchObject({
      SharingNotice: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 1,
      SensitiveDataProcessingOptOutNotice: 0, SensitiveDataLimitUseNotice: 0,
      SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2,
      SensitiveDataProcessing: Array(16).fill(0), KnownChildSensitiveDataConsents: [0, 0, 0], PersonalDataConsents: 0,
      MspaCoveredTransaction: 2, MspaOptOutOptionMode: 0, MspaServiceProviderMode: 0, Gpc: false,
    });
    expect(model.getSection('usca')).toMatchObject({
      SaleOptOutNotice: 1, SharingOptOutNotice: 1, SensitiveDataLimitUseNotice: 0,
      SaleOptOut: 2, SharingOptOut: 2, PersonalDataConsents: 0, MspaCoveredTransaction: 2, Gpc: false,
    });
  });

  it('say "opted out" (1) after an opt-out, and with Global Privacy Control (Gpc true)', () => {
    const optedOut = written('US-CA', { optedOut: true, gpc: false });
    expect(optedOut.getSection('usnat')).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1, TargetedAdvertisingOptOut: 1, Gpc: false });
    expect(optedOut.getSection('usca')).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1, Gpc: false });
    const gpc = written('US-CA', { optedOut: false, gpc: true });
    expect(gpc.getSection('usnat')).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1, TargetedAdvertisingOptOut: 1, Gpc: true });
    expect(gpc.getSection('usca')).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1, Gpc: true });
  });

  it('fill every state section of the library with its own fields', () => {
    expect(US_STATE_SECTIONS.length).toBeGreaterThan(15);
    for (const section of US_STATE_SECTIONS) {
      const region = `US-${section.slice(2).toUpperCase()}`;
      expect(usSections(region)).toEqual(['usnat', section]);
      for (const choice of [{ optedOut: false, gpc: false }, { optedOut: true, gpc: true }]) {
        const fields = written(region, choice).getSection(section) as Record<string, unknown>;
        const expected = choice.optedOut ? 1 : 2;
        for (const field of ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut']) {
          if (field in fields) expect(fields[field], `${section}.${field}`).toBe(expected);
        }
        expect(fields.SaleOptOut, `${section}.SaleOptOut`).toBe(expected);
        expect(fields.SaleOptOutNotice, `${section}.SaleOptOutNotice`).toBe(1);
        expect(fields.MspaCoveredTransaction, `${section}.MspaCoveredTransaction`).toBe(2);
        if ('Gpc' in fields) expect(fields.Gpc, `${section}.Gpc`).toBe(choice.gpc);
        for (const [field, value] of Object.entries(fields)) {
          if (/^(Sensitive|KnownChild|PersonalData|AdditionalData)/.test(field) && !field.endsWith('Notice')) {
            expect([value].flat().every((v) => v === 0), `${section}.${field} not applicable`).toBe(true);
          }
        }
      }
    }
  });
});

describe('docs/integrating.md', () => {
  it('lists the state sections the banner writes, with their ids', () => {
    const docs = readFileSync(resolve(import.meta.dirname, '../../../docs/integrating.md'), 'utf8');
    const table = [...docs.matchAll(/\| (US-[A-Z]{2}) \| `(us[a-z]{2})` \((\d+)\)/g)].map(([, region, section, id]) => [region, section, Number(id)]);
    const library = US_STATE_SECTIONS.map((section) => [`US-${section.slice(2).toUpperCase()}`, section, sectionId(section)]);
    expect(table.sort()).toEqual(library.sort());
  });
});
