/**
 * What the banner tells the service: each choice (`POST …/consents`), and each page view, counted
 * once per page — by a consent recorded on it, else by an empty beacon that names no visitor when
 * the page is left. (A page restored from the back-forward cache is a new view.)
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

/** Sends a choice; the consent id, or undefined when the request was refused or failed. */
export function recordConsent(endpoint: string, body: unknown): Promise<string | undefined> {
  viewCounted = true;
  // text/plain spares the CORS preflight; keepalive lets the request outlive a page that navigates away.
  return fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain' },
    body: JSON.stringify(body),
    keepalive: true,
    credentials: 'omit',
  })
    .then(
      (response) => {
        if (response.status === 403) warnOfOrigin();
        return response.ok ? response.json() : undefined;
      },
      // The request itself failed: the network, or an origin the service refused (no CORS headers).
      () => warnOfOrigin(),
    )
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

function countView(endpoint: string): void {
  if (viewCounted) return;
  viewCounted = true;
  try {
    navigator.sendBeacon(endpoint);
  } catch {
    // a browser without beacons counts no page view
  }
}

/** Sends the page-view beacon to `endpoint` when the page is left, unless a consent counted the view. */
export function countPageViews(endpoint: string): void {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') countView(endpoint);
  });
  window.addEventListener('pagehide', () => countView(endpoint));
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) viewCounted = viewRecorded = false;
  });
}
