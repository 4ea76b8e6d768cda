/**
 * The account's own categories under TCF: the visitor chooses on the TCF screens alone, and each
 * category follows the purposes it stands for, so that the scripts the site gates by category and
 * Google Consent Mode (consent-mode.ts maps the same slugs) agree with the TC string.
 *
 * A category is on when the visitor consented to every purpose it needs (purpose 1, storing or
 * reading on the device, is needed by all: without it nothing optional may store anything):
 *
 * | category slug | TCF purposes needed | Consent Mode signals |
 * |---|---|---|
 * | required (`necessary`) | none: always on | security_storage |
 * | `functional` | 1 | functionality_storage |
 * | `preferences` | 1, 5, 6 (personalised content profile, its use) | personalization_storage |
 * | `analytics` | 1, 8, 9 (measure content, understand audiences) | analytics_storage |
 * | `marketing` | 1, 2, 3, 4, 7 (basic ads, ad profile, personalised ads, ad measurement) | ad_storage, ad_user_data, ad_personalization |
 * | any other slug | every purpose of the vendor list | — |
 *
 * Purposes 10 (develop and improve services) and 11 (limited data to select content) gate no
 * category: they are the vendors' and reach them through the TC string only. Legitimate interest
 * never turns a category on: the site's own tags run on consent.
 */

export const PURPOSES_BY_SLUG: Readonly<Record<string, readonly number[]>> = {
  functional: [1],
  preferences: [1, 5, 6],
  analytics: [1, 8, 9],
  marketing: [1, 2, 3, 4, 7],
};

/** The slugs of the categories on under `consented` purposes (of `allPurposes`, the vendor list's). */
export function categoriesFor(
  consented: ReadonlySet<number>,
  allPurposes: readonly number[],
  categories: readonly { slug: string; required: boolean }[],
): string[] {
  return categories
    .filter((category) => category.required || (PURPOSES_BY_SLUG[category.slug] ?? allPurposes).every((id) => consented.has(id)))
    .map((category) => category.slug);
}
