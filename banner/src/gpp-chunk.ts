/**
 * The GPP file: the IAB's `@iabgpp/cmpapi` (about 19 KB compressed), built apart from the banner
 * (banner/build.ts) and loaded only for visitors in an opt-out region (banner/src/gpp.ts). Its
 * `CmpApi` takes `__gpp` over from the banner's stub, with the stub's listeners; the commands the
 * stub queued are answered by the banner once the sections are written.
 */

import { CmpApi, CmpStatus, SignalStatus } from '@iabgpp/cmpapi';
import { sectionId, usSections, writeSection, type UsChoice } from './gpp-sections.ts';

/** Consentry has no CMP id of the IAB's: 0, as the specification allows for an unregistered CMP. */
const CMP_ID = 0;
const CMP_VERSION = 1;

/** The US sections of a visitor in an opt-out region, kept in `__gpp`. */
export interface UsSignal {
  /** The GPP string now. */
  readonly gppString: string;
  /** The ids of the sections that apply (`usnat` 7, and the state's own). */
  readonly applicable: number[];
  /** The visitor opted out (or took it back): the sections change, with the events the specification orders. */
  update(optedOut: boolean): string;
}

/** Starts the CMP API for a visitor in `region` (`US-CA`, or null when the state is not known). */
export function startUsSignal(region: string | null, choice: UsChoice): UsSignal {
  const sections = usSections(region);
  const cmp = new CmpApi(CMP_ID, CMP_VERSION);
  let current = { ...choice };
  const write = () => {
    for (const section of sections) writeSection(cmp, section, current);
  };
  write();
  const applicable = sections.map(sectionId);
  cmp.setApplicableSections(applicable);
  cmp.setSupportedAPIs(sections);
  cmp.setCmpStatus(CmpStatus.LOADED);
  for (const section of sections) cmp.fireSectionChange(section);
  cmp.setSignalStatus(SignalStatus.READY);
  return {
    get gppString() {
      return cmp.getGppString();
    },
    applicable,
    update(optedOut) {
      // "not ready" first and "ready" last, the section changes between (CMP API 1.1, events).
      cmp.setSignalStatus(SignalStatus.NOT_READY);
      current = { ...current, optedOut };
      write();
      for (const section of sections) cmp.fireSectionChange(section);
      cmp.setSignalStatus(SignalStatus.READY);
      return cmp.getGppString();
    },
  };
}
