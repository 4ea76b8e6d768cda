/**
 * What the banner tells the service: each choice (`POST …/consents`), and each page view, counted
 * once per page — by a consent recorded on it, else by a beacon when the page is left. The beacon
 * names the session only where the banner asked the visitor (the consent rate's visitors): a new
 * random one on every page until a choice is kept, since nothing is stored before a choice; none for
 * a visitor whose choice holds. (A page restored from the back-forward cache is a new view.)
 */

/** The view is counted, or will be: by the beacon, or by a consent recorded or on its way. */
let viewCounted = false;
/** A consent was recorded on this view: it stays counted whatever a later choice's request does. */
let viewRecorded = false;

/** A consent that was not recorded leaves the view to the beacon. */
function notRecorded(): void {
  if (!viewRecorded) viewCounted = false;
}

let warned = false;

/** The service refused the choice as sent (a page's tag the script cannot fix): the developer reads why. */
async function warnOfRefusal(response: Response): Promise<void> {
  const answer = await response.json().catch(() => undefined) as { errors?: { error?: string; message?: string }[] } | undefined;
  const reasons = (answer?.errors ?? []).map((error) => error.error ?? error.message).filter(Boolean).join('; ');
  console.warn(`Consentry: the service refused the visitor's choice (${response.status}${reasons ? `: ${reasons}` : ''}); it was not recorded.`);
}

/**
 * The service answers a page of another origin 403 without CORS headers, which the page sees only
 * as a network error: the site's developer is told the likely cause, once per page.
 */
function warnOfOrigin(): void {
  if (warned) return;
  warned = true;
  console.warn(
    `Consentry: the visitor's choice was not recorded. The likely cause: this page's origin (${location.origin}) ` +
      "is not the account's domain, a subdomain of it or one of its allowed_domains, and the service refuses other origins.",
  );
}

/** A random key for one choice: 16 bytes in hex (getRandomValues works on http pages too, randomUUID does not). */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let key = '';
  for (const byte of bytes) key += byte.toString(16).padStart(2, '0');
  return key;
}

/** Waits before the tries after the first: a second, then three. */
const RETRY_DELAYS = [1_000, 3_000];

/**
 * Sends a choice; the consent id, or undefined when the request was refused or failed. The choice
 * carries an idempotency key: when the request fails on the way (the network, an instance that
 * stopped) or is answered 502 to 504 (a load balancer's instance gone, the service busy), it is sent again with the same key, and the service stores
 * it once whichever try it heard.
 */
export function recordConsent(endpoint: string, body: object): Promise<string | undefined> {
  const sent = JSON.stringify({ ...body, idempotency_key: newKey() });
  /** A try failed: the view is the beacon's while the next one waits (a page left meanwhile takes its timer). */
  const again = (tries: number) => {
    notRecorded();
    return new Promise<void>((resolve) => setTimeout(resolve, RETRY_DELAYS[tries])).then(() => send(tries + 1));
  };
  const send = (tries: number): Promise<Response | undefined> => {
    // A try on its way counts the view again (the beacon may have taken it meanwhile: then twice).
    viewCounted = true;
    // text/plain spares the CORS preflight; keepalive lets the request outlive a page that navigates away.
    return fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: sent, keepalive: true, credentials: 'omit' }).then(
      // 502 to 504: a load balancer's instance went away, or the service is busy.
      (response) => (response.status >= 502 && response.status <= 504 && tries < RETRY_DELAYS.length ? again(tries) : response),
      // The request itself failed: the network, or an origin the service refused (no CORS headers).
      () => {
        warnOfOrigin();
        return tries < RETRY_DELAYS.length ? again(tries) : undefined;
      },
    );
  };
  return send(0)
    .then((response) => {
      if (response?.status === 403) warnOfOrigin();
      else if (response?.status === 400 || response?.status === 422) void warnOfRefusal(response);
      return response?.ok ? response.json() : undefined;
    })
    .then((answer: { data?: { id?: string } } | undefined) => {
      const id = answer?.data?.id;
      if (id) viewRecorded = true;
      else notRecorded();
      return id;
    })
    .catch(() => {
      notRecorded();
      return undefined;
    });
}

function countView(endpoint: string, session: string | undefined): void {
  if (viewCounted) return;
  viewCounted = true;
  try {
    navigator.sendBeacon(endpoint, session ? JSON.stringify({ session_id: session }) : undefined);
  } catch {
    // a browser without beacons counts no page view
  }
}

/**
 * Sends the page-view beacon to `endpoint` when the page is left, unless a consent counted the view;
 * `askedSession` is the session the banner asked on this page, if it did.
 */
export function countPageViews(endpoint: string, askedSession: () => string | undefined): void {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') countView(endpoint, askedSession());
  });
  window.addEventListener('pagehide', () => countView(endpoint, askedSession()));
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) viewCounted = viewRecorded = false;
  });
}
