/**
 * Whether a GPP string decodes with the IAB's own library (`@iabgpp/cmpapi`, whose `GppModel` needs
 * no DOM): its header names sections that are all there, and each section's segments decode.
 *
 * The library is imported at the first GPP string (about 0.2–0.4 s, which a start without one does
 * not pay), and a full decode takes 0.1–0.2 ms: the strings found to decode are remembered, as a
 * site's visitors send a handful of distinct ones (one per choice and GPC state).
 */
type GppModelClass = typeof import('@iabgpp/cmpapi').GppModel;

let library: Promise<GppModelClass> | undefined;
const loadModel = () => (library ??= import('@iabgpp/cmpapi').then((module) => module.GppModel));

/** Strings known to decode; past this many it is cleared, and strings are decoded again. */
const MAX_REMEMBERED = 1_000;
const decodable = new Set<string>();

/** A GPP string's header section: type 3, version 1, in base64url. */
const HEADER = 'DB';

export async function decodesAsGpp(text: string): Promise<boolean> {
  if (decodable.has(text)) return true;
  // The library reads a string without that header as a TCF or US Privacy string, not a GPP one.
  if (!text.startsWith(HEADER)) return false;
  const GppModel = await loadModel();
  try {
    // The model decodes lazily: `toObject` reads every field of every section.
    new GppModel(text).toObject();
  } catch {
    return false;
  }
  if (decodable.size >= MAX_REMEMBERED) decodable.clear();
  decodable.add(text);
  return true;
}
