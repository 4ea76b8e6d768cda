import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { BuiltBundles } from '../../../banner/build.ts';
import { BUNDLE_PATH, BUNDLE_TCF_PATH, chunkName, chunkPath, CHUNKS, type Chunk } from '../../../banner/paths.ts';
import type { BannerConfig } from '../../../banner/src/config.ts';
import type { Executor } from '../../db/kysely.ts';
import type { MaybePromise } from '../../lib/maybe-promise.ts';
import { TtlMap } from '../../lib/ttl-map.ts';
import type { BannerSettings } from '../banner/banner.schema.ts';
import { bannerRegions, bannerTexts, findBannerSettings, translationsFor } from '../banner/banner.service.ts';
import { recordNoticeSnapshot, type NoticeHashes } from '../notices/notices.service.ts';
import { bannerTcf, type VendorListFacts, type VendorLists } from '../tcf/tcf.service.ts';
import { bannerContent, findWidgetAccount, type WidgetAccount } from './widget.repository.ts';

type Content = Awaited<ReturnType<typeof bannerContent>>;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** A script ready to send, in each encoding, with its ETag. */
export interface EncodedScript {
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

/** One account's banner, ready to send: its configuration and its script in each encoding. */
export interface BuiltBanner extends EncodedScript {
  config: BannerConfig;
}

/** A file the banner loads when it needs it (banner/paths.ts), under its content-hashed name. */
export interface BuiltChunk extends EncodedScript {
  name: string;
}

/**
 * The bundles, the GPP file and the TCF file `npm run build` wrote, or (a fresh clone, a test run,
 * a dist/ from before one of them) the same built in memory: a bundle names the files it was built with.
 */
async function loadBundles(): Promise<BuiltBundles> {
  const paths = [BUNDLE_PATH(), BUNDLE_TCF_PATH(), ...CHUNKS.map((chunk) => chunkPath(chunk))];
  if (paths.every((path) => existsSync(path))) {
    const [banner, bannerTcf, ...codes] = await Promise.all(paths.map((path) => readFile(path, 'utf8')));
    const chunks = Object.fromEntries(CHUNKS.map((chunk, i) => [chunk, { name: chunkName(chunk, codes[i]!), code: codes[i]! }]));
    return { banner: banner!, bannerTcf: bannerTcf!, chunks: chunks as BuiltBundles['chunks'] };
  }
  const { buildBanner } = await import('../../../banner/build.ts');
  return buildBanner();
}

/** Compressed once, when built (brotli at quality 11, gzip at 9): see banner-script.routes.ts. */
export async function encode(identity: Buffer): Promise<EncodedScript> {
  const [gzipped, brotli] = await Promise.all([
    gzipAsync(identity, { level: 9 }),
    brotliAsync(identity, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
    }),
  ]);
  const etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 32)}"`;
  return { etag, identity, gzip: gzipped, br: brotli };
}

/**
 * What the banner script is given: the account, its look and texts, its regional rules (the named
 * groups expanded as of now: the same script for every visitor, wherever they are), and its
 * categories; the account's own words in other languages only in those the banner speaks; its TCF
 * settings when it has TCF on and a vendor list is loaded (`gvl`), else no `tcf` at all.
 */
function configOf(account: WidgetAccount, settings: BannerSettings, content: Content, gvl: VendorListFacts | undefined): BannerConfig {
  const {
    translations: _, revision, account_id: __, languages,
    regional_rules, default_mode, consent_mode, regional_rules_customised: ___, tcf: tcfSettings,
    ...look
  } = settings;
  const tcf = bannerTcf(tcfSettings, gvl);
  const spoken = <T extends { translations: Parameters<typeof translationsFor>[0] }>(thing: T): T =>
    ({ ...thing, translations: translationsFor(thing.translations, languages) });
  return {
    account: { id: account.id, name: account.name, default_language: account.default_language, domain: account.domain },
    revision,
    banner: look,
    regions: bannerRegions({ regional_rules, default_mode, consent_mode }),
    texts: bannerTexts(settings),
    categories: content.map((category) => ({
      ...spoken(category),
      storage_items: category.storage_items.map(spoken),
      services: category.services.map(spoken),
    })),
    ...(tcf ? { tcf } : {}),
  };
}

/**
 * The bundle runs inside a function whose one parameter is the account's configuration: the bundle
 * with the `__tcfapi` stub and the TCF file's loader for an account with TCF on, the plain one
 * (the same bytes as before TCF existed) for the others.
 */
export function scriptFor(bundles: Pick<BuiltBundles, 'banner' | 'bannerTcf'>, config: BannerConfig): string {
  const bundle = config.tcf ? bundles.bannerTcf : bundles.banner;
  return `/* Consentry banner, account ${config.account.id}, revision ${config.revision} */\n` +
    `(function(__CONSENTRY_CONFIG__){${bundle}})(${JSON.stringify(config)});\n`;
}

/**
 * Each account's banner script and configuration, built once and kept in memory, so that a page view
 * costs no database round trip and no compression.
 *
 * - A change of the banner, a category, a storage item or a service calls `forget` after its commit (through
 *   `forgetBanner` or `forgetCategories` of services.ts, which tell the other instances over Redis);
 *   the lifetime (one minute) bounds what a lost message, or a change made by the AI worker, leaves.
 * - A build that overlapped a `forget` is answered but not kept.
 */
export class BannerScripts {
  private readonly built = new TtlMap<string, BuiltBanner | undefined>(60_000, 500);
  private readonly building = new Map<string, Promise<BuiltBanner | undefined>>();
  private generation = 0;
  private bundles: Promise<BuiltBundles> | undefined;
  private readonly chunks = new Map<Chunk, Promise<BuiltChunk>>();

  constructor(
    private readonly db: Executor,
    private readonly notices?: Pick<NoticeHashes, 'remember'>,
    private readonly vendorLists?: Pick<VendorLists, 'current'>,
  ) {}

  /** The banner at once when built (the hot path spends no promise on it), else a promise of it. */
  get(accountId: string): MaybePromise<BuiltBanner | undefined> {
    const cached = this.built.get(accountId);
    if (cached) return cached.value;
    const pending = this.building.get(accountId);
    if (pending) return pending;
    const generation = this.generation;
    const build = this.build(accountId)
      .then((banner) => {
        if (generation === this.generation) this.built.set(accountId, banner);
        return banner;
      })
      .finally(() => {
        if (this.building.get(accountId) === build) this.building.delete(accountId);
      });
    this.building.set(accountId, build);
    return build;
  }

  forget(accountId: string): void {
    this.generation++;
    this.built.forget(accountId);
    this.building.delete(accountId);
  }

  /** A chunk file, compressed once: the same for every account. */
  chunk(chunk: Chunk): Promise<BuiltChunk> {
    let file = this.chunks.get(chunk);
    if (!file) {
      file = this.loaded()
        .then(async ({ chunks }) => ({ name: chunks[chunk].name, ...await encode(Buffer.from(chunks[chunk].code)) }))
        .catch((error: unknown) => {
          this.chunks.delete(chunk);
          throw error;
        });
      this.chunks.set(chunk, file);
    }
    return file;
  }

  /** The bundle, loaded once. */
  private loaded(): Promise<BuiltBundles> {
    this.bundles ??= loadBundles().catch((error: unknown) => {
      this.bundles = undefined;
      throw error;
    });
    return this.bundles;
  }

  /**
   * The script the account's banner would be with `settings` (not saved: the editor's preview),
   * built fresh and never cached.
   */
  async preview(accountId: string, settings: BannerSettings): Promise<string | undefined> {
    const [bundles, account, categories, gvl] = await Promise.all([
      this.loaded(), findWidgetAccount(this.db, accountId), bannerContent(this.db, accountId), this.vendorLists?.current(),
    ]);
    return account && scriptFor(bundles, configOf(account, settings, categories, gvl));
  }

  private async build(accountId: string): Promise<BuiltBanner | undefined> {
    const [bundles, account, settings, categories, gvl] = await Promise.all([
      this.loaded(),
      findWidgetAccount(this.db, accountId),
      findBannerSettings(this.db, accountId),
      bannerContent(this.db, accountId),
      this.vendorLists?.current(),
    ]);
    if (!account || !settings) return undefined;
    const shown = configOf(account, settings, categories, gvl);
    // The snapshot of what this banner shows is stored before the banner is served, so that every
    // `notice_hash` a visitor can send back names a stored snapshot. The same content is stored once.
    const content = JSON.parse(JSON.stringify(shown)) as unknown;
    const { hash } = await recordNoticeSnapshot(this.db, accountId, content);
    this.notices?.remember(accountId, hash);
    const config: BannerConfig = { ...shown, notice_hash: hash };
    return { config, ...await encode(Buffer.from(scriptFor(bundles, config))) };
  }
}
