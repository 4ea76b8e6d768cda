import table from './us-privacy-laws.json' with { type: 'json' };

/**
 * The US states whose comprehensive consumer privacy law gives residents the right to opt out of the
 * sale of their personal data and of targeted advertising: the `US-PRIVACY-STATES` group is the
 * states whose law is in force on a given day, so a law joins the group by itself on its date.
 *
 * The table is `us-privacy-laws.json`, reviewed on the day its `reviewed` says (2026-12-06) against
 * the statutes' citations and public trackers (IAPP, the legislatures, law firms' summaries); a law
 * signed after mid-2026 may be missing. Review it again whenever a state enacts, amends or delays a
 * law, and set `reviewed` to that day.
 *
 * Left out on purpose:
 * - Florida's Digital Bill of Rights (Fla. Stat. § 501.701 et seq., in force 2024-07-01) binds only
 *   controllers with more than US$1 billion of yearly revenue; a site it binds adds `US-FL` to a rule.
 * - Laws for children and teens only (Arkansas's Children and Teens' Online Privacy Protection Act,
 *   2026-07-01) and health-data or data-broker laws (Washington's My Health My Data Act, Nevada's
 *   SB 370): they ask no opt-out banner of every visitor.
 *
 * This table is information, not legal advice: whether a law binds a site depends on thresholds
 * (numbers of residents, revenue from selling data) that only its owner can judge.
 */
export interface UsPrivacyLaw {
  /** ISO 3166-2 code of the state. */
  region: string;
  name: string;
  /** The day it came or comes into force (YYYY-MM-DD). */
  effective: string;
  /** The statute (and the bill that enacted it). */
  source: string;
  note?: string;
}

/** The table, in `us-privacy-laws.json` beside this file, with the day it was last reviewed. */
export const US_PRIVACY_LAWS: readonly UsPrivacyLaw[] = table.laws;
export const US_PRIVACY_LAWS_REVIEWED: string = table.reviewed;

/** `2026-12-06` for a moment: the UTC day, which the effective dates are compared with. */
function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The laws in force on a day (the UTC day of `asOf`). */
export function usPrivacyLawsInForce(asOf: Date): UsPrivacyLaw[] {
  const day = utcDay(asOf);
  return US_PRIVACY_LAWS.filter((law) => law.effective <= day);
}

/** The `US-PRIVACY-STATES` group on a day: the states whose law is in force then. */
export function usPrivacyStates(asOf: Date): string[] {
  return usPrivacyLawsInForce(asOf).map((law) => law.region);
}
