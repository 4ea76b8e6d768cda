/**
 * The client's cached copy is current: its `If-None-Match` lists this `etag`, weak (`W/`) or not
 * (the comparison a GET's revalidation makes is the weak one), or is `*`.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === etag || trimmed === `W/${etag}` || trimmed === '*';
  });
}
