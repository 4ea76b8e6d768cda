/**
 * Runs in every frame before the page's own scripts: remembers which script wrote each cookie
 * (`document.cookie`) and storage key (`setItem`), from the first script URL on the call stack.
 * The crawler reads and empties the list after each page; it stays small and never leaves the page.
 */
export const INSTRUMENT_SCRIPT = `(() => {
  if (window.__consentryScan) return;
  const writes = [];
  Object.defineProperty(window, '__consentryScan', { value: writes });
  const scriptOf = () => {
    const lines = String(new Error().stack || '').split('\\n').slice(3);
    for (const line of lines) {
      const match = /(https?:\\/\\/[^\\s()]+?)(?::\\d+){1,2}\\)?\\s*$/.exec(line);
      if (match) return match[1];
    }
    return null;
  };
  const record = (type, name) => { if (writes.length < 1000) writes.push([type, name, scriptOf()]); };
  const cookie = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie');
  if (cookie && cookie.set) {
    Object.defineProperty(Document.prototype, 'cookie', {
      configurable: true,
      enumerable: cookie.enumerable,
      get() { return cookie.get.call(this); },
      set(value) {
        try { record('cookie', String(value).split(';')[0].split('=')[0].trim()); } catch {}
        cookie.set.call(this, value);
      },
    });
  }
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    try { record(this === window.sessionStorage ? 'session_storage' : 'local_storage', String(key)); } catch {}
    return setItem.call(this, key, value);
  };
})();`;

/** What a frame reports after a page: its host, its storage keys, and the writes it saw. */
export const READ_FRAME_SCRIPT = `(() => {
  const keys = (name) => { try { return Object.keys(window[name]); } catch { return []; } };
  const writes = window.__consentryScan ? window.__consentryScan.splice(0) : [];
  return { host: location.hostname, protocol: location.protocol, local: keys('localStorage'), session: keys('sessionStorage'), writes };
})()`;

export interface FrameReading {
  host: string;
  protocol: string;
  local: string[];
  session: string[];
  writes: Array<[type: 'cookie' | 'local_storage' | 'session_storage', name: string, script: string | null]>;
}
