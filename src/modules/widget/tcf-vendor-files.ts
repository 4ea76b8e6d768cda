import type { FastifyReply, FastifyRequest } from 'fastify';
import { chooseEncoding } from '../../http/accept-encoding.ts';
import { NotFoundError } from '../../http/app-errors.ts';
import { etagMatches } from '../../http/if-none-match.ts';
import { TtlMap } from '../../lib/ttl-map.ts';
import { translationFor, vendorListSubset, type LoadedVendorList } from '../tcf/tcf.service.ts';
import { encode, type EncodedScript } from './banner-script.ts';
import { SCRIPT_MAX_AGE_S } from './script-max-age.ts';

/** One account's vendor list file, ready to send: its language and its encodings. */
export interface BuiltVendorFile extends EncodedScript {
  /** The translation used (`de`), or `en`: the list's own words. */
  language: string;
}

/**
 * The files `GET /widget/{id}/tcf-vendors.json` answers, built once per vendor list version,
 * language and set of vendors (accounts with the same vendors share one), compressed once.
 */
export class TcfVendorFiles {
  private readonly built = new TtlMap<string, Promise<BuiltVendorFile>>(10 * 60_000, 500);

  get(gvl: LoadedVendorList, vendorIds: readonly number[], lang: string | undefined): Promise<BuiltVendorFile> {
    const language = translationFor(Object.keys(gvl.translations), lang);
    const key = `${gvl.version}:${gvl.updatedAt.getTime()}:${language ?? 'en'}:${vendorIds.join(',')}`;
    const cached = this.built.get(key);
    if (cached) return cached.value;
    const file = (async () => {
      const subset = vendorListSubset(gvl.list, vendorIds, language === undefined ? undefined : gvl.translations[language]);
      return { language: language ?? 'en', ...await encode(Buffer.from(JSON.stringify(subset))) };
    })();
    this.built.set(key, file);
    return file;
  }
}

const CACHE_CONTROL = `public, max-age=${SCRIPT_MAX_AGE_S}`;

/** Sends a file: 304 on a matching ETag, else the encoding the client takes best. */
export function sendVendorFile(request: FastifyRequest, reply: FastifyReply, file: BuiltVendorFile): FastifyReply {
  reply.header('etag', file.etag).header('cache-control', CACHE_CONTROL).header('vary', 'Origin, Accept-Encoding').header('content-language', file.language);
  if (etagMatches(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  const encoding = chooseEncoding(request.headers['accept-encoding']);
  reply.header('content-type', 'application/json; charset=utf-8');
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  return reply.send(file[encoding]);
}

/** The account's TCF vendors are found: it has TCF on (its built banner carries `tcf`) and a list is in force. */
export function tcfVendorsOf(tcf: { vendor_ids: number[] } | undefined, gvl: LoadedVendorList | undefined): { vendorIds: number[]; gvl: LoadedVendorList } {
  if (!tcf || !gvl) throw new NotFoundError();
  return { vendorIds: tcf.vendor_ids, gvl };
}
