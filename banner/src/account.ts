import type { BannerCategory, BannerConfig } from './config.ts';

/** Embedded by the service in each account's script; see src/modules/widget/banner-script.ts. */
declare const __CONSENTRY_CONFIG__: BannerConfig;

/** The account's banner: its categories, texts and look, as the service built them into this script. */
export const config = __CONSENTRY_CONFIG__;

/** This script's own tag: where the page may say its visitor's region (`data-region`). */
export const script = document.currentScript as HTMLScriptElement | null;
/** The service this script was loaded from: where the choice and the page views are sent. */
export const serviceBase = script?.src ? new URL(script.src).origin : '';

export const bySlug = new Map<string, BannerCategory>(config.categories.map((category) => [category.slug, category]));

/** The categories opting out of sale, sharing and targeted advertising switches off (never a required one). */
export const saleSlugs = config.categories.filter((category) => category.sale_or_sharing && !category.required).map((category) => category.slug);
