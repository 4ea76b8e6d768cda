/**
 * Microsoft's tags follow the same choices as Google's: UET (Microsoft Advertising) reads `ad_storage`
 * from its queue, `window.uetq`; Clarity reads `ad_Storage` and `analytics_Storage` through its
 * consent API, `clarity('consentv2', …)`. Both are told before their own snippets run, through the
 * queues those snippets keep (each snippet reuses a queue it finds), and again on each change.
 */
import type { SignalState } from './consent-mode.ts';

type ClarityQueue = ((...args: unknown[]) => void) & { q?: unknown[] };

declare global {
  interface Window {
    uetq?: unknown[];
    clarity?: ClarityQueue;
  }
}

let told = '';

export function tellMicrosoft(kind: 'default' | 'update', state: SignalState): void {
  const { ad_storage, analytics_storage } = state;
  const key = ad_storage + analytics_storage;
  if (key === told) return;
  told = key;
  // UET's bat.js replaces the array with its own object, which takes the same push.
  window.uetq = window.uetq || [];
  window.uetq.push('consent', kind, { ad_storage });
  // Clarity's snippet keeps a queue it finds at window.clarity, of `arguments` objects as its own.
  const clarity: ClarityQueue = window.clarity || function queue() {
    // eslint-disable-next-line prefer-rest-params
    (clarity.q = clarity.q || []).push(arguments);
  };
  window.clarity = clarity;
  clarity('consentv2', { ad_Storage: ad_storage, analytics_Storage: analytics_storage });
}
