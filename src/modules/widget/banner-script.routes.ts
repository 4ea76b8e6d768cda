import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Chunk } from '../../../banner/paths.ts';
import { chooseEncoding } from '../../http/accept-encoding.ts';
import { etagMatches } from '../../http/if-none-match.ts';
import { after } from '../../lib/maybe-promise.ts';
import type { Services } from '../../services.ts';
import { markCodeInstalled } from '../accounts/accounts.service.ts';
import type { EncodedScript } from './banner-script.ts';
import { SCRIPT_MAX_AGE_S } from './script-max-age.ts';
import { originAllowed } from './widget-accounts.ts';

const CACHE_CONTROL = `public, max-age=${SCRIPT_MAX_AGE_S}`;
/** A chunk file's name is its content's hash: a browser or a CDN may keep it for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const JAVASCRIPT = 'text/javascript; charset=utf-8';
const UNKNOWN = '/* Consentry: there is no banner for this account. Check the account id in the script tag. */\n';

/**
 * The script goes out as it was compressed once, when built (brotli at quality 11, gzip at 9). Not
 * @fastify/compress: it compresses every response anew and cannot send stored variants (it leaves
 * alone a reply that has a Content-Encoding). On this route, at its own brotli quality of 4, in three
 * alternating pairs of `npm run bench` runs (2026-12-06): 44 req/s against 3,080 (0.01×, medians of
 * the pairs), 7.8 ms of server CPU per request against 65 µs.
 */
function send(request: FastifyRequest, reply: FastifyReply, script: EncodedScript | undefined, cacheControl = CACHE_CONTROL, missing = UNKNOWN): FastifyReply {
  // Any website may load the script with a plain <script> tag (the API's other answers stay same-site).
  reply.header('cross-origin-resource-policy', 'cross-origin');
  if (!script) {
    return reply.code(404).header('content-type', JAVASCRIPT).header('cache-control', 'no-store').send(missing);
  }
  reply.header('etag', script.etag).header('cache-control', cacheControl).header('vary', 'Accept-Encoding');
  if (etagMatches(request.headers['if-none-match'], script.etag)) return reply.code(304).send();
  const encoding = chooseEncoding(request.headers['accept-encoding']);
  reply.header('content-type', JAVASCRIPT);
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  return reply.send(script[encoding]);
}

/**
 * `GET /widget/{account_id}.js`: the account's banner from memory. The first load of an account
 * in this process by one of its own pages marks its code installed (once: later loads touch no row).
 * A page of another site (its Referer) installs nothing: the service refuses its choices anyway. A
 * load that names no page (no Referer, as a page with `no-referrer` asks) counts.
 */
export function bannerScriptHandler(services: Services) {
  const marked = new Set<string>();
  // Not async: a built banner is sent without a promise; Fastify waits for reply.send otherwise.
  return (request: FastifyRequest, reply: FastifyReply): void => {
    const account = request.widgetAccount;
    if (!account) {
      send(request, reply, undefined);
      return;
    }
    const referer = request.headers.referer;
    if (!marked.has(account.id) && (referer === undefined || originAllowed(account, referer))) {
      marked.add(account.id);
      markCodeInstalled(services.db, [account.id]).catch((error: unknown) => {
        marked.delete(account.id);
        request.log.warn({ err: error }, 'could not mark the banner code installed');
      });
    }
    const sent = after(services.bannerScripts.get(account.id), (banner) => send(request, reply, banner));
    if (sent instanceof Promise) sent.catch((error: unknown) => reply.send(error));
  };
}

/**
 * `GET /widget/{chunk}.{hash}.js`: a file the banner loads only when it needs it (banner/paths.ts),
 * cached for good. Another hash than the one the banner was built with is not found.
 */
export function chunkFileHandler(services: Services, chunk: Chunk) {
  const missing = `/* Consentry: no such ${chunk} file. The banner names the one it was built with. */\n`;
  return async (request: FastifyRequest<{ Params: { hash: string } }>, reply: FastifyReply): Promise<void> => {
    const file = await services.bannerScripts.chunk(chunk);
    send(request, reply, file.name === `${chunk}.${request.params.hash}.js` ? file : undefined, IMMUTABLE, missing);
  };
}
