import type { BannerCategory, BannerConfig } from './config.ts';

/** Embedded by the service in each account's script; see src/modules/widget/banner-script.ts. */
declare const __CONSENTRY_CONFIG__: BannerConfig;

/** The account's banner: its categories, texts and look, as the service built them into this script. */
export const config = __CONSENTRY_CONFIG__;

const script = document.currentScript as HTMLScriptElement | null;
/** The service this script was loaded from: where the choice and the page views are sent. */
export const serviceBase = script?.src ? new URL(script.src).origin : '';

export const bySlug = new Map<string, BannerCategory>(config.categories.map((category) => [category.slug, category]));
