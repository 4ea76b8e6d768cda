/**
 * The US states whose comprehensive consumer privacy law gives residents the right to opt out of the
 * sale of their personal data and of targeted advertising: the `US-PRIVACY-STATES` group is the
 * states whose law is in force on a given day, so a law joins the group by itself on its date.
 *
 * Reviewed 2026-12-06 against the enacted texts' citations and public trackers (IAPP, state
 * legislatures, law-firm summaries); a law signed after mid-2026 may be missing. Review it again
 * whenever a state enacts, amends or delays a law, and say the date here.
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

export const US_PRIVACY_LAWS: readonly UsPrivacyLaw[] = [
  { region: 'US-CA', name: 'California Consumer Privacy Act, as amended by the California Privacy Rights Act', effective: '2020-01-01', source: 'Cal. Civ. Code § 1798.100 et seq. (AB 375, 2018; Proposition 24, 2020)', note: 'The CPRA amendments apply from 2023-01-01.' },
  { region: 'US-VA', name: 'Virginia Consumer Data Protection Act', effective: '2023-01-01', source: 'Va. Code § 59.1-575 et seq. (SB 1392 / HB 2307, 2021)' },
  { region: 'US-CO', name: 'Colorado Privacy Act', effective: '2023-07-01', source: 'Colo. Rev. Stat. § 6-1-1301 et seq. (SB 21-190)' },
  { region: 'US-CT', name: 'Connecticut Data Privacy Act', effective: '2023-07-01', source: 'Conn. Gen. Stat. § 42-515 et seq. (Public Act 22-15)' },
  { region: 'US-UT', name: 'Utah Consumer Privacy Act', effective: '2023-12-31', source: 'Utah Code § 13-61-101 et seq. (SB 227, 2022)' },
  { region: 'US-TX', name: 'Texas Data Privacy and Security Act', effective: '2024-07-01', source: 'Tex. Bus. & Com. Code ch. 541 (HB 4, 2023)' },
  { region: 'US-OR', name: 'Oregon Consumer Privacy Act', effective: '2024-07-01', source: 'Or. Rev. Stat. § 646A.570 et seq. (SB 619, 2023)' },
  { region: 'US-MT', name: 'Montana Consumer Data Privacy Act', effective: '2024-10-01', source: 'Mont. Code Ann. § 30-14-2801 et seq. (SB 384, 2023)' },
  { region: 'US-IA', name: 'Iowa Consumer Data Protection Act', effective: '2025-01-01', source: 'Iowa Code ch. 715D (SF 262, 2023)' },
  { region: 'US-DE', name: 'Delaware Personal Data Privacy Act', effective: '2025-01-01', source: 'Del. Code tit. 6, ch. 12D (HB 154, 2023)' },
  { region: 'US-NE', name: 'Nebraska Data Privacy Act', effective: '2025-01-01', source: 'Neb. Rev. Stat. § 87-1101 et seq. (LB 1074, 2024)' },
  { region: 'US-NH', name: 'New Hampshire Privacy Act', effective: '2025-01-01', source: 'N.H. Rev. Stat. ch. 507-H (SB 255, 2024)' },
  { region: 'US-NJ', name: 'New Jersey Data Privacy Act', effective: '2025-01-15', source: 'N.J. Stat. § 56:8-166.4 et seq. (P.L. 2023, c. 266; S332)' },
  { region: 'US-TN', name: 'Tennessee Information Protection Act', effective: '2025-07-01', source: 'Tenn. Code Ann. § 47-18-3201 et seq. (HB 1181, 2023)' },
  { region: 'US-MN', name: 'Minnesota Consumer Data Privacy Act', effective: '2025-07-31', source: 'Minn. Stat. ch. 325O (HF 4757, 2024)' },
  { region: 'US-MD', name: 'Maryland Online Data Privacy Act', effective: '2025-10-01', source: 'Md. Code, Com. Law § 14-4601 et seq. (SB 541 / HB 567, 2024)', note: 'Applies to processing from 2026-04-01.' },
  { region: 'US-IN', name: 'Indiana Consumer Data Protection Act', effective: '2026-01-01', source: 'Ind. Code art. 24-15 (SB 5, 2023)' },
  { region: 'US-KY', name: 'Kentucky Consumer Data Protection Act', effective: '2026-01-01', source: 'Ky. Rev. Stat. ch. 367, new sections (HB 15, 2024)' },
  { region: 'US-RI', name: 'Rhode Island Data Transparency and Privacy Protection Act', effective: '2026-01-01', source: 'R.I. Gen. Laws § 6-48.1-1 et seq. (H 7787 / S 2500, 2024)' },
  { region: 'US-OK', name: 'Oklahoma Consumer Data Privacy Act', effective: '2027-01-01', source: 'Okla. SB 546 (2026), signed 2026-03-20' },
  { region: 'US-LA', name: 'Louisiana Data Privacy Act', effective: '2027-01-01', source: 'La. SB 386 (2026), Act 502, signed 2026-05-29' },
  { region: 'US-AL', name: 'Alabama Personal Data Protection Act', effective: '2027-05-01', source: 'Ala. HB 351 (2026), signed 2026-04-16' },
  { region: 'US-VT', name: 'Vermont Data Privacy and Online Surveillance Act', effective: '2028-01-01', source: 'Vt. S.71 (2025–2026), signed 2026-06-16' },
];

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
