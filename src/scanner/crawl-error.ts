/**
 * A crawl that ended for a reason to tell the user (unreachable site, cancelled, refused address).
 * On its own so that the server, which only reports crawls, never loads the browser driver.
 */
export class CrawlError extends Error {}
