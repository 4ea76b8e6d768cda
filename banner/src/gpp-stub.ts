/**
 * The IAB Global Privacy Platform's `__gpp` stub (CMP API 1.1), in the banner itself: from the
 * script's first line, `__gpp` answers `ping` and `addEventListener`/`removeEventListener`, queues the
 * other commands, answers frames that ask by `postMessage` (`__gppCall`), and the page has the
 * `__gppLocator` frame they look for. Then either the IAB's own library (the GPP file, in opt-out
 * regions) takes the queue and the listeners over, as the specification's stub hands them on
 * (`__gpp()` is the queue, `__gpp('events')` the listeners), or, where no section applies, the stub
 * answers everything itself: no section, `applicableSections` [-1]. Every byte here is in every
 * visitor's script: it is kept small.
 */

export type GppCallback = (data: unknown, success: boolean) => void;
export type GppCall = [command: string, callback?: GppCallback, parameter?: unknown, version?: string];
export type GppFunction = (...call: Partial<GppCall>) => unknown;

interface Listener {
  id: number;
  callback: GppCallback;
  parameter: unknown;
}

declare global {
  interface Window {
    __gpp?: GppFunction;
  }
}

export interface GppStub {
  /** Takes the commands queued so far, for the library to answer once it holds the sections. */
  take(): GppCall[];
  /** No section applies: the stub answers from now on, tells its listeners, and answers what it queued. */
  settle(): void;
}

function answer(callback: GppCallback | undefined, data: unknown, success = true): void {
  callback?.(data, success);
}

/** Installs the stub, unless the page already has a `__gpp` (another CMP's, which stays in charge). */
export function installGppStub(): GppStub | undefined {
  if (typeof window.__gpp === 'function') return undefined;
  let queue: GppCall[] = [];
  let settled = false;
  let lastId = 0;
  const listeners: Listener[] = [];
  const ping = {
    gppVersion: '1.1',
    cmpStatus: 'stub',
    cmpDisplayStatus: 'hidden',
    signalStatus: 'not ready',
    supportedAPIs: [],
    cmpId: 0,
    sectionList: [],
    // 0 while the visitor's region is not known yet, as the specification allows during the stub.
    applicableSections: [0],
    gppString: '',
  };
  const event = (eventName: string, listenerId: unknown, data: unknown) => ({ eventName, listenerId, data, pingData: { ...ping } });

  const gpp: GppFunction = (command, callback, parameter, version) => {
    if (!command) return queue;
    if (command === 'events') return listeners;
    if (command === 'ping') return answer(callback, { ...ping });
    if (command === 'addEventListener') {
      // A listener that throws is the page's error, thrown on its own: the stub's and the library's
      // events still reach the others, and the banner goes on.
      const guarded: GppCallback = (data, success) => {
        try {
          callback!(data, success);
        } catch (error) {
          setTimeout(() => { throw error; });
        }
      };
      if (callback) listeners.push({ id: ++lastId, callback: guarded, parameter });
      return answer(callback, event('listenerRegistered', lastId, true));
    }
    if (command === 'removeEventListener') {
      const at = listeners.findIndex((listener) => listener.id === parameter);
      return answer(callback, event('listenerRemoved', parameter, at >= 0 && !!listeners.splice(at, 1)));
    }
    if (!settled) queue.push([command, callback, parameter, version]);
    else answer(callback, command === 'hasSection' ? false : null, /^(has|get)Section$|^getField$/.test(command));
  };
  window.__gpp = gpp;

  // Frames ask the page by postMessage and are answered the same way (the specification's format).
  addEventListener('message', (message) => {
    const text = typeof message.data === 'string';
    try {
      const call = (text ? JSON.parse(message.data) : message.data).__gppCall;
      if (call) {
        window.__gpp!(call.command, (returnValue, success) => {
          const reply = { __gppReturn: { returnValue, success, callId: call.callId } };
          (message.source as Window).postMessage(text ? JSON.stringify(reply) : reply, '*');
        }, call.parameter, call.version);
      }
    } catch {
      // not a GPP call
    }
  });

  // The frame that a script inside another frame looks for, to know that this page answers `__gpp`.
  const locator = () => {
    const frame = document.createElement('iframe');
    frame.name = '__gppLocator';
    frame.style.display = 'none';
    document.body.appendChild(frame);
  };
  // When the page is idle, not as the banner starts or before the first frame: a new frame costs 5
  // to 10 ms, by which the banner would show later (`npm run bench:banner`: ×1.31 → ×1.06–1.19 of
  // the library alone with `data-region`). The frames that look for it are ads', made later; a hidden
  // page, which has no idle time, gets it within 200 ms all the same.
  const place = () => (document.body ? locator() : document.addEventListener('DOMContentLoaded', locator, { once: true }));
  if (typeof requestIdleCallback === 'function') requestIdleCallback(place, { timeout: 200 });
  else setTimeout(place, 50);

  const take = () => {
    const taken = queue;
    queue = [];
    return taken;
  };
  return {
    take,
    settle() {
      settled = true;
      Object.assign(ping, { cmpStatus: 'loaded', cmpDisplayStatus: 'disabled', signalStatus: 'ready', applicableSections: [-1] });
      for (const name of ['cmpStatus', 'signalStatus'] as const) {
        for (const listener of listeners.slice()) answer(listener.callback, event(name, listener.id, ping[name]));
      }
      for (const call of take()) gpp(...call);
    },
  };
}
