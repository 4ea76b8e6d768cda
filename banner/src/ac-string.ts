/**
 * Google's Additional Consent string, version 2 (the "AC string"): the Google ad technology providers
 * (ATPs) outside the IAB's vendor list that the visitor consented to, and those disclosed to them
 * without consent. `2~<consented ids, dot-separated>~dv.<disclosed ids, dot-separated>`, ids in
 * ascending order, a consented id never repeated among the disclosed ones: `2~1.35~dv.9.21` means
 * consent for 1 and 35, and 9 and 21 shown. Pure, so that the banner and the service share it.
 */

/** The longest AC string the service keeps (a few thousand providers at most, six digits each). */
export const MAX_AC_STRING_LENGTH = 8192;

const ascending = (ids: Iterable<number>) => [...new Set(ids)].filter((id) => Number.isInteger(id) && id > 0).sort((a, b) => a - b);

/**
 * The AC string for the providers `disclosed` (the account's `google_atp_ids`), of which the visitor
 * consented to `consented` (an id not disclosed is not consented to: it is left out).
 */
export function buildAcString(disclosed: Iterable<number>, consented: Iterable<number>): string {
  const shown = ascending(disclosed);
  const yes = new Set(consented);
  const given = shown.filter((id) => yes.has(id));
  const only = shown.filter((id) => !yes.has(id));
  return `2~${given.join('.')}~dv.${only.join('.')}`;
}

export interface AcString {
  version: 1 | 2;
  consented: number[];
  /** Version 2 only: the providers disclosed without consent. */
  disclosed: number[];
}

const IDS = /^(?:[1-9]\d{0,8}(?:\.[1-9]\d{0,8})*)?$/;

/** An AC string read back (version 1, `1~1.35`, or 2), or undefined when it is not one. */
export function parseAcString(text: string): AcString | undefined {
  if (text.length > MAX_AC_STRING_LENGTH) return undefined;
  const ids = (part: string) => (part === '' ? [] : part.split('.').map(Number));
  const v2 = /^2~([^~]*)~dv\.([^~]*)$/.exec(text);
  if (v2) {
    if (!IDS.test(v2[1]) || !IDS.test(v2[2])) return undefined;
    return { version: 2, consented: ids(v2[1]), disclosed: ids(v2[2]) };
  }
  const v1 = /^1~([^~]*)$/.exec(text);
  if (v1 && IDS.test(v1[1])) return { version: 1, consented: ids(v1[1]), disclosed: [] };
  return undefined;
}
