/**
 * GPP's `tcfeuv2` section (id 2) for a visitor the TCF screens ask, in the TCF file: the IAB's
 * `@iabgpp/cmpapi` takes `__gpp` over from the banner's stub (which, for such a visitor, neither
 * settles nor loads the GPP file: banner/src/gpp.ts), writes the TC string into the section, and
 * tells the listeners of each change, as the GPP file does for the US sections.
 */

import { CmpApi, CmpDisplayStatus, CmpStatus, SignalStatus } from '@iabgpp/cmpapi';
import type { GppCall } from './gpp-stub.ts';

const SECTION = 'tcfeuv2';

export interface TcfGpp {
  /** The TC string in force (null: none yet) and whether the screens are shown. */
  write(tcString: string | null, visible: boolean): void;
}

export function startTcfGpp(queued: GppCall[], cmpId: number, cmpVersion: number): TcfGpp {
  const cmp = new CmpApi(cmpId, cmpVersion);
  cmp.setApplicableSections([2]);
  cmp.setSupportedAPIs([`2:${SECTION}`]);
  cmp.setCmpStatus(CmpStatus.LOADED);
  let answered = false;
  return {
    write(tcString, visible) {
      cmp.setSignalStatus(SignalStatus.NOT_READY);
      cmp.setCmpDisplayStatus(visible ? CmpDisplayStatus.VISIBLE : CmpDisplayStatus.HIDDEN);
      if (tcString) {
        cmp.setSectionString(SECTION, tcString);
        cmp.fireSectionChange(SECTION);
      }
      cmp.setSignalStatus(SignalStatus.READY);
      if (answered) return;
      // What was asked before: once the section is written (or known to be empty).
      answered = true;
      for (const call of queued) {
        try {
          window.__gpp!(...call);
        } catch (error) {
          setTimeout(() => { throw error; });
        }
      }
    },
  };
}
