import type { BannerCategory } from './config.ts';

/** `_ga_*` → /^_ga_.*$/: a wildcard item stands for every name it matches. */
function matcher(name: string): (candidate: string) => boolean {
  if (!name.includes('*')) return (candidate) => candidate === name;
  const pattern = new RegExp(`^${name.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return (candidate) => pattern.test(candidate);
}

/** The host and each parent domain, after '' for host-only: a cookie may have been set on any of them. */
export function domainsOf(hostname: string): string[] {
  const parts = hostname.split('.');
  const domains = [''];
  if (/^[\d.]+$/.test(hostname) || parts.length < 2) return domains;
  for (let i = 0; i < parts.length - 1; i++) domains.push(parts.slice(i).join('.'));
  return domains;
}

/**
 * Every path a cookie the page can see may have, since a cookie is deleted only with its exact path:
 * the page's path and each prefix of it that ends before or at a slash (`/shop/cart/` → `/`,
 * `/shop`, `/shop/`, `/shop/cart`, `/shop/cart/`; a cookie set there without a path has `/shop/cart`).
 */
function paths(): string[] {
  const path = location.pathname || '/';
  const out = new Set(['/', path]);
  for (let i = path.indexOf('/', 1); i !== -1; i = path.indexOf('/', i + 1)) {
    out.add(path.slice(0, i));
    out.add(path.slice(0, i + 1));
  }
  return [...out];
}

/** Deletes the cookie `name` wherever the page may have it: on the host and each parent domain, on every path. */
export function eraseCookie(name: string): void {
  for (const domain of domainsOf(location.hostname)) {
    for (const path of paths()) {
      document.cookie =
        `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; max-age=0; path=${path}` + (domain ? `; domain=${domain}` : '');
    }
  }
}

function storageKeys(storage: Storage): string[] {
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (key !== null) keys.push(key);
  }
  return keys;
}

/** Deletes the cookies and stored keys of the finalised storage items of every rejected category. */
export function clearRejected(categories: BannerCategory[], rejected: (slug: string) => boolean): void {
  const cookieNames = document.cookie.split(';').map((pair) => pair.split('=')[0].trim()).filter(Boolean);
  for (const category of categories) {
    if (category.required || !rejected(category.slug)) continue;
    for (const item of category.storage_items) {
      const matches = matcher(item.name);
      try {
        if (item.storage_type === 'cookie') cookieNames.filter(matches).forEach(eraseCookie);
        else {
          const storage = item.storage_type === 'local_storage' ? localStorage : sessionStorage;
          for (const key of storageKeys(storage).filter(matches)) storage.removeItem(key);
        }
      } catch {
        // Storage can be unavailable (a sandboxed frame, blocked third-party storage): nothing to clear there.
      }
    }
  }
}
