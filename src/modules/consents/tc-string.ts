import { TCString } from '@iabtechlabtcf/core';

/**
 * What the service reads of an IAB TCF TC string, decoded with the IAB's own library
 * (`@iabtechlabtcf/core`): the purposes consented to and those whose legitimate interest stands
 * (not objected to). Decoding takes tens of microseconds; a site's visitors send a handful of distinct
 * strings a day (one per choice and vendor list version, the creation time aside), so the results of
 * the last ones are remembered.
 */
export interface TcPurposes {
  consents: number[];
  legitimateInterests: number[];
}

const MAX_REMEMBERED = 1_000;
const decoded = new Map<string, TcPurposes | null>();

/** The ids set in one of the model's vectors, ascending. */
function setIds(vector: { forEach(callback: (value: boolean, id: number) => void): void }): number[] {
  const ids: number[] = [];
  vector.forEach((value, id) => {
    if (value) ids.push(id);
  });
  return ids.sort((a, b) => a - b);
}

/** The purposes of a TC string, or undefined when the library cannot decode it. */
export function tcPurposes(text: string): TcPurposes | undefined {
  const known = decoded.get(text);
  if (known !== undefined) return known ?? undefined;
  let result: TcPurposes | null;
  try {
    const model = TCString.decode(text);
    // A string of the wrong version or without its core segment decodes to nothing usable.
    if (model.version !== 2 || !model.cmpId) throw new Error('not a TCF 2 string');
    result = { consents: setIds(model.purposeConsents), legitimateInterests: setIds(model.purposeLegitimateInterests) };
  } catch {
    result = null;
  }
  if (decoded.size >= MAX_REMEMBERED) decoded.clear();
  decoded.set(text, result);
  return result ?? undefined;
}

export const decodesAsTcString = (text: string): boolean => tcPurposes(text) !== undefined;
