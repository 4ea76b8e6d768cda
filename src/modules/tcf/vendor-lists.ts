import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor } from '../../db/kysely.ts';
import { findVendorList, latestVersion, storeVendorList } from './tcf.repository.ts';
import {
  activeVendorIds,
  MAX_GVL_BYTES,
  parseDeclarations,
  parseVendorList,
  VendorListError,
  type Declarations,
  type VendorListJson,
} from './vendor-list.ts';

/** The Global Vendor List in force, as the service reads it. */
export interface LoadedVendorList {
  version: number;
  tcfPolicyVersion: number;
  list: VendorListJson;
  /** Declarations by language code (`de`, `pt-pt`): English is the list's own. */
  translations: Record<string, Declarations>;
  /** The vendors the list still carries (not deleted). */
  vendorIds: Set<number>;
  fetchedAt: Date;
  updatedAt: Date;
}

/** A vendor list with its translations, read from a file, a folder or the network, not stored yet. */
export interface VendorListSource {
  list: VendorListJson;
  translations: Record<string, Declarations>;
}

/** `purposes-de.json`, `purposes-pt-pt.json`: the IAB's names of its translation files. */
const TRANSLATION_FILE = /^purposes-([a-z]{2,3}(?:-[a-z0-9]{2,8})?)\.json$/;
/** The languages a folder or the network may hold: bounded, as the IAB publishes a few dozen. */
const MAX_TRANSLATIONS = 100;

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new VendorListError(`${what} is not JSON`);
  }
}

async function readBounded(path: string): Promise<string> {
  const info = await stat(path);
  if (info.size > MAX_GVL_BYTES) throw new VendorListError(`${path} is larger than ${MAX_GVL_BYTES} bytes`);
  return readFile(path, 'utf8');
}

/**
 * A `vendor-list.json`, or a folder holding one and `purposes-xx.json` translations (as the IAB
 * publishes them), read and checked. Throws VendorListError (or the file system's error).
 */
export async function readVendorListSource(path: string): Promise<VendorListSource> {
  const info = await stat(path);
  if (!info.isDirectory()) return { list: parseVendorList(parseJson(await readBounded(path), path)), translations: {} };
  const listPath = join(path, 'vendor-list.json');
  const list = parseVendorList(parseJson(await readBounded(listPath), listPath));
  const translations: Record<string, Declarations> = {};
  const names = (await readdir(path)).filter((name) => TRANSLATION_FILE.test(name)).sort().slice(0, MAX_TRANSLATIONS);
  for (const name of names) {
    const language = TRANSLATION_FILE.exec(name)![1];
    translations[language] = parseDeclarations(parseJson(await readBounded(join(path, name)), join(path, name)));
  }
  return { list, translations };
}

/** The body of an answer, refused past `max` bytes (counted as it arrives, not as announced). */
async function boundedText(response: Response, max: number, what: string): Promise<string> {
  const announced = Number(response.headers.get('content-length'));
  if (announced > max) throw new VendorListError(`${what} is larger than ${max} bytes`);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new VendorListError(`${what} is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function fetchJson(url: URL, timeoutMs: number): Promise<unknown | undefined> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow', headers: { accept: 'application/json' } });
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new VendorListError(`${url.href} answered ${response.status}`);
  }
  return parseJson(await boundedText(response, MAX_GVL_BYTES, url.href), url.href);
}

/**
 * `vendor-list.json` at `url`, and the translations `purposes-xx.json` beside it for `languages`
 * (a language the server does not have is skipped). Each request times out after `timeoutMs`.
 */
export async function fetchVendorListSource(url: string, languages: readonly string[], timeoutMs: number): Promise<VendorListSource> {
  const base = new URL(url);
  const json = await fetchJson(base, timeoutMs);
  if (json === undefined) throw new VendorListError(`${base.href} answered 404`);
  const list = parseVendorList(json);
  const translations: Record<string, Declarations> = {};
  for (const language of languages.slice(0, MAX_TRANSLATIONS)) {
    const file = await fetchJson(new URL(`purposes-${language}.json`, base), timeoutMs);
    if (file !== undefined) translations[language] = parseDeclarations(file);
  }
  return { list, translations };
}

export interface VendorListsOptions {
  /** How often the version in force is compared with the database's (another instance may store a newer one). */
  checkIntervalMs?: number;
  log?: { error(details: object, message: string): void; info?(details: object, message: string): void };
}

/**
 * The Global Vendor List in force, for every tenant: the highest version stored in the database,
 * read again when another instance stores a newer one (compared at most every `checkIntervalMs`,
 * one small query), and kept in memory in between.
 */
export class VendorLists {
  private loaded: LoadedVendorList | undefined;
  private checkedAt = -Infinity;
  private checking: Promise<LoadedVendorList | undefined> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<unknown> | undefined;
  private readonly checkIntervalMs: number;

  constructor(private readonly db: Executor, private readonly options: VendorListsOptions = {}) {
    this.checkIntervalMs = options.checkIntervalMs ?? 60_000;
  }

  /** The list in force, or undefined while none is stored. */
  current(now = Date.now()): Promise<LoadedVendorList | undefined> {
    if (now - this.checkedAt < this.checkIntervalMs) return Promise.resolve(this.loaded);
    this.checking ??= this.check(now).finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async check(now: number): Promise<LoadedVendorList | undefined> {
    const latest = await latestVersion(this.db);
    // A newer version, or the same one with translations added since it was read.
    if (latest && (latest.version !== this.loaded?.version || latest.updated_at.getTime() !== this.loaded.updatedAt.getTime())) {
      const row = await findVendorList(this.db, latest.version);
      if (row) this.loaded = this.toLoaded(row);
    }
    this.checkedAt = now;
    return this.loaded;
  }

  private toLoaded(row: NonNullable<Awaited<ReturnType<typeof findVendorList>>>): LoadedVendorList {
    return {
      version: row.version,
      tcfPolicyVersion: row.tcf_policy_version,
      list: row.vendor_list,
      translations: row.translations,
      vendorIds: activeVendorIds(row.vendor_list),
      fetchedAt: row.fetched_at,
      updatedAt: row.updated_at,
    };
  }

  /**
   * Stores a list (its version and translations); the same again writes nothing. The list in force
   * is read again at once here; other instances see it within their check interval.
   */
  async store(source: VendorListSource): Promise<{ version: number; stored: boolean }> {
    const stored = await storeVendorList(this.db, source.list, source.translations);
    this.checkedAt = -Infinity;
    await this.current();
    return { version: source.list.vendorListVersion, stored };
  }

  /** Reads `TCF_GVL_FILE` (a file or a folder) and stores it. */
  async loadFile(path: string): Promise<{ version: number; stored: boolean }> {
    return this.store(await readVendorListSource(path));
  }

  /** Fetches `TCF_GVL_URL` and stores it; a failure keeps the stored list and is logged, never thrown. */
  refreshFrom(url: string, languages: readonly string[], timeoutMs: number): Promise<unknown> {
    this.refreshing ??= fetchVendorListSource(url, languages, timeoutMs)
      .then((source) => this.store(source))
      .then((result) => this.options.log?.info?.({ gvl_version: result.version, stored: result.stored }, 'TCF vendor list fetched'))
      .catch((error: unknown) => this.options.log?.error({ err: error, url }, 'could not fetch the TCF vendor list; the stored one stays in force'))
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Fetches now, then every `intervalS` seconds, in the background. */
  startRefresh(url: string, languages: readonly string[], intervalS: number, timeoutMs: number): void {
    void this.refreshFrom(url, languages, timeoutMs);
    this.timer = setInterval(() => void this.refreshFrom(url, languages, timeoutMs), intervalS * 1000);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.refreshing;
  }
}
