import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { BUNDLE_PATH } from '../../../banner/paths.ts';
import type { BannerConfig } from '../../../banner/src/config.ts';
import type { Executor } from '../../db/kysely.ts';
import type { MaybePromise } from '../../lib/maybe-promise.ts';
import { TtlMap } from '../../lib/ttl-map.ts';
import type { BannerSettings } from '../banner/banner.schema.ts';
import { bannerRegions, bannerTexts, findBannerSettings, translationsFor } from '../banner/banner.service.ts';
import { bannerContent, findWidgetAccount, type WidgetAccount } from './widget.repository.ts';

type Content = Awaited<ReturnType<typeof bannerContent>>;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** One account's banner, ready to send: its configuration and its script in each encoding. */
export interface BuiltBanner {
  config: BannerConfig;
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

/** The bundle `npm run build` wrote, or (a fresh clone, a test run) the same built in memory. */
async function loadBundle(): Promise<string> {
  const path = BUNDLE_PATH();
  if (existsSync(path)) return readFile(path, 'utf8');
  const { buildBanner } = await import('../../../banner/build.ts');
  return buildBanner();
}

/**
 * What the banner script is given: the account, its look and texts, its regional rules (the named
 * groups expanded as of now: the same script for every visitor, wherever they are), and its
 * categories; the account's own words in other languages only in those the banner speaks.
 */
function configOf(account: WidgetAccount, settings: BannerSettings, content: Content): BannerConfig {
  const {
    translations: _, revision, account_id: __, languages,
    regional_rules, default_mode, consent_mode, regional_rules_customised: ___,
    ...look
  } = settings;
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
  };
}

/** The bundle runs inside a function whose one parameter is the account's configuration. */
export function scriptFor(bundle: string, config: BannerConfig): string {
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
  private bundle: Promise<string> | undefined;

  constructor(private readonly db: Executor) {}

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

  /** The bundle, loaded once. */
  private loaded(): Promise<string> {
    this.bundle ??= loadBundle().catch((error: unknown) => {
      this.bundle = undefined;
      throw error;
    });
    return this.bundle;
  }

  /**
   * The script the account's banner would be with `settings` (not saved: the editor's preview),
   * built fresh and never cached.
   */
  async preview(accountId: string, settings: BannerSettings): Promise<string | undefined> {
    const [bundle, account, categories] = await Promise.all([this.loaded(), findWidgetAccount(this.db, accountId), bannerContent(this.db, accountId)]);
    return account && scriptFor(bundle, configOf(account, settings, categories));
  }

  private async build(accountId: string): Promise<BuiltBanner | undefined> {
    const [bundle, account, settings, categories] = await Promise.all([
      this.loaded(),
      findWidgetAccount(this.db, accountId),
      findBannerSettings(this.db, accountId),
      bannerContent(this.db, accountId),
    ]);
    if (!account || !settings) return undefined;
    const config = configOf(account, settings, categories);
    const identity = Buffer.from(scriptFor(bundle, config));
    const [gzipped, brotli] = await Promise.all([
      gzipAsync(identity, { level: 9 }),
      brotliAsync(identity, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
      }),
    ]);
    const etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 32)}"`;
    return { config, etag, identity, gzip: gzipped, br: brotli };
  }
}
