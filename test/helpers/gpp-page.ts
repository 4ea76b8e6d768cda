/**
 * A page script for the GPP browser tests: banner/src/gpp.ts as the banner runs it, with its
 * functions on `window.gppHarness`, so that a test page can start GPP in any mode and region the
 * banner's modes will ask for. Built by `buildGppPage` with the banner's own defines.
 */
import { gppString, installGpp, startGpp, updateGpp } from '../../banner/src/gpp.ts';

declare global {
  interface Window {
    gppHarness: { installGpp: typeof installGpp; startGpp: typeof startGpp; updateGpp: typeof updateGpp; gppString: typeof gppString };
  }
}

window.gppHarness = { installGpp, startGpp, updateGpp, gppString };
