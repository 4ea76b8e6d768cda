import { build } from 'esbuild';
import { join } from 'node:path';
import { GPP_GLOBAL, withoutTcf } from '../../banner/build.ts';
import { projectRoot } from '../../banner/paths.ts';
import type { BannerConfig } from '../../banner/src/config.ts';

/**
 * gpp-page.ts as an IIFE for a test page: the banner's GPP code with `gppFile`, the GPP file's name
 * the service serves, and a configuration of `accountId` that keeps the choice for `expiryDays`.
 */
export async function buildGppPage(gppFile: string, accountId: string, expiryDays = 180): Promise<string> {
  const config = { account: { id: accountId, name: 'Test', default_language: 'en', domain: 'localhost' }, revision: 1, banner: { consent_expiry_days: expiryDays }, texts: {}, categories: [] };
  const result = await build({
    entryPoints: [join(import.meta.dirname, 'gpp-page.ts')],
    bundle: true,
    format: 'iife',
    target: ['es2019'],
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    // As the banner of accounts without TCF runs it.
    plugins: [withoutTcf(projectRoot())],
    define: {
      __CONSENTRY_CONFIG__: JSON.stringify(config satisfies Partial<Omit<BannerConfig, 'banner'>>),
      __CONSENTRY_GPP_CHUNK__: JSON.stringify(gppFile),
      __CONSENTRY_GPP_GLOBAL__: JSON.stringify(GPP_GLOBAL),
    },
  });
  return result.outputFiles[0].text;
}
