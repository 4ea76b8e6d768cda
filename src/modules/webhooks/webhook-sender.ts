import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { addressPolicy, RefusedAddressError, resolveAllowed, UnresolvedHostError } from '../../scanner/address-guard.ts';

export interface SendOptions {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  /** Aborted: the attempt stops at once and answers `aborted` (the worker is closing). */
  signal?: AbortSignal;
}

export interface SendOutcome {
  ok: boolean;
  aborted?: boolean;
  statusCode: number | null;
  error: string | null;
}

const failed = (error: string, statusCode: number | null = null): SendOutcome => ({ ok: false, statusCode, error });

/**
 * One attempt at a delivery, as Standard Webhooks says: a POST of the JSON payload with
 * `webhook-id` (the same on every attempt), `webhook-timestamp` (seconds) and `webhook-signature`
 * (`v1,` and the HMAC-SHA256 of `id.timestamp.body` under the endpoint's secret).
 * The host is resolved and every address checked by the scanner's guard at this moment, and the
 * connection goes to the checked address (no second lookup, no DNS rebinding); only https unless
 * private networks are allowed. Redirects are not followed (a 3xx is a failure), the whole attempt
 * is bounded by `timeoutMs`, and of the answer only the status is read: the connection is closed
 * once it is in, so a receiver cannot hold the worker with a long or endless body.
 */
export async function sendDelivery(
  target: { url: string; secret: string },
  message: { id: string; payload: string; at: Date },
  options: SendOptions,
): Promise<SendOutcome> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return failed('the URL is invalid');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowPrivateNetworks)) return failed('the URL must be https');
  let address: { address: string; family: number };
  try {
    address = await resolveAllowed(url.hostname, addressPolicy(options.allowPrivateNetworks));
  } catch (error) {
    if (error instanceof RefusedAddressError || error instanceof UnresolvedHostError) return failed(error.message);
    throw error;
  }
  const signature = new Webhook(target.secret).sign(message.id, message.at, message.payload);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.payload)),
    'user-agent': 'Consentry-Webhooks/1',
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(message.at.getTime() / 1000)),
    'webhook-signature': signature,
  };
  // The checked address, whatever Node asks for (one address, or all of them).
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (e: null, a: typeof address[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const abort = () => finish({ ...failed('aborted'), aborted: true });
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', abort);
      request.destroy();
      resolve(outcome);
    };
    // The status decides; the body is never read (the socket is closed once the status is in).
    const request = client.request(url, { method: 'POST', headers, lookup, agent: false }, (response) => {
      const status = response.statusCode ?? 0;
      finish(status >= 200 && status < 300 ? { ok: true, statusCode: status, error: null } : failed(`answered ${status}`, status));
    });
    const deadline = setTimeout(() => finish(failed(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(failed(`could not connect (${error.code ?? error.message})`)));
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    request.end(message.payload);
  });
}
