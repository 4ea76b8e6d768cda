/**
 * `__tcfapi` in the script of an account with TCF on, from its first line: the IAB's own stub
 * (`@iabtechlabtcf/stub`: it queues the calls, answers `ping` and frames' `postMessage` calls, and
 * puts the `__tcfapiLocator` frame in the page). Then either the TCF file's `CmpApi` takes the queue
 * over (opt-in regions), or, where the TCF does not apply, the small answerer here says so:
 * `gdprApplies` false, as the IAB's `CmpApi` answers after `update(null)`, without loading it.
 */

import installStub from '@iabtechlabtcf/stub';

type Callback = (data: unknown, success: boolean) => void;
type Call = [command?: unknown, version?: unknown, callback?: unknown, parameter?: unknown];

declare global {
  interface Window {
    __tcfapi?: (...call: Call) => unknown;
  }
}

/** The TCF policy version of TCF 2.2 and 2.3, which the IAB's CmpApi reports too. */
const TCF_POLICY_VERSION = 5;

/**
 * Installs the stub; false when this page (or a frame above it) already has a CMP, which stays in
 * charge: the banner then leaves the TCF alone.
 */
export function installTcfStub(): boolean {
  if (typeof window.__tcfapi === 'function') return false;
  installStub();
  return typeof window.__tcfapi === 'function';
}

/** The TCF does not apply to this visitor: `__tcfapi` answers so, and answers what the stub queued. */
export function answerNotApplies(cmpId: number, cmpVersion: number): void {
  const queued = (window.__tcfapi?.() as Call[] | undefined) ?? [];
  let lastListener = 0;
  const base = { cmpId, cmpVersion, gdprApplies: false, tcfPolicyVersion: TCF_POLICY_VERSION };
  const tcData = (listenerId?: number) => ({ ...base, tcString: undefined, listenerId, eventStatus: 'tcloaded', cmpStatus: 'loaded' });
  const api = (...[command, , callback]: Call) => {
    if (typeof callback !== 'function') return;
    const answer = callback as Callback;
    if (command === 'ping') answer({ ...base, cmpLoaded: true, cmpStatus: 'loaded', displayStatus: 'disabled', apiVersion: '2' }, true);
    else if (command === 'getTCData') answer(tcData(), true);
    else if (command === 'addEventListener') answer(tcData(++lastListener), true);
    else if (command === 'removeEventListener') answer(true, true);
    else answer(null, false);
  };
  window.__tcfapi = api;
  for (const call of queued) api(...call);
}
