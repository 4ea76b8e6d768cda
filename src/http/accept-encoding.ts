/** The encodings this service sends a body in, best first; `identity` (none) is always acceptable. */
export type Encoding = 'br' | 'gzip' | 'identity';

const COMPRESSED = ['br', 'gzip'] as const;

/** Browsers send a handful of distinct Accept-Encoding values: each is parsed once. */
const parsed = new Map<string, Encoding[]>();

/**
 * The compressed encodings a client accepts, by its `Accept-Encoding` header: a coding named with a
 * weight above 0, or left unnamed under a `*` with one (`q=0`, or a weight that does not parse, refuses).
 */
function accepted(header: string): Encoding[] {
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    weights.set(name.trim(), q === undefined ? 1 : Number(q.slice(2)));
  }
  return COMPRESSED.filter((encoding) => (weights.get(encoding) ?? weights.get('*') ?? 0) > 0);
}

/** The best of the `offered` encodings that the client accepts: brotli, then gzip, else identity. */
export function chooseEncoding(header: string | undefined, offered: readonly Encoding[] = COMPRESSED): Encoding {
  if (!header) return 'identity';
  let encodings = parsed.get(header);
  if (!encodings) {
    encodings = accepted(header);
    if (parsed.size < 256) parsed.set(header, encodings);
  }
  for (const encoding of encodings) if (offered.includes(encoding)) return encoding;
  return 'identity';
}
