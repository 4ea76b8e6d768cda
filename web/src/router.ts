import { useEffect, useState } from 'preact/hooks';

/** A small history router: the dashboard has a dozen pages and needs no more than this. */
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());
window.addEventListener('popstate', notify);

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  history[options.replace ? 'replaceState' : 'pushState'](null, '', to);
  notify();
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const [, setVersion] = useState(0);
  const seen = location.pathname + location.search;
  useEffect(() => {
    const listener = () => setVersion((n) => n + 1);
    listeners.add(listener);
    // A navigation between this render and the subscription would otherwise go unseen.
    if (location.pathname + location.search !== seen) listener();
    return () => void listeners.delete(listener);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** Matches `/accounts/:id/categories` against a path; the parameters, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.replace(/\/+$/, '').split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return undefined;
  }
  return params;
}

/** Keeps a link a link (new tab, copy address) while following it in the page on a plain click. */
export function followLink(event: MouseEvent, href: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(href);
}
