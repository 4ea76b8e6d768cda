/**
 * JSON with every object's keys sorted (by UTF-16 code units, as `<` compares strings) and no
 * whitespace: one text for one value, whatever order its keys were built or stored in (jsonb
 * reorders them). Strings, numbers, booleans and null are written as JSON.stringify writes them.
 * For JSON values only (no `undefined`): the consent chain hashes it, so it must never change.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      out += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${canonicalJson((value as Record<string, unknown>)[keys[i]])}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value);
}
