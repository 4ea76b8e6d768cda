import type { Config } from '../config.ts';

/** Fastify's `trustProxy` for the configuration's TRUST_PROXY. */
export type TrustProxyOption = boolean | string[] | ((address: string, hop: number) => boolean);

/**
 * Lists and booleans go to Fastify as they are. A hop count becomes a function: Fastify 5 reads a
 * number as "trust no proxy" (it cannot tell the balancer from a client connecting directly), so
 * the count is applied here, knowingly: the n nearest addresses of the chain (the socket's first)
 * are proxies, and the entry after them, which the farthest of them appended, is the client.
 */
export function trustProxyOption(trust: Config['trustProxy']): TrustProxyOption {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}
