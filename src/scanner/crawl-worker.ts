import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { addressPolicy } from './address-guard.ts';
import { PROFILE_REMOVAL_RETRY_MS } from './browser.ts';
import { CrawlError } from './crawl-error.ts';
import { crawl } from './crawl.ts';
import type { CrawlRequest, FromCrawl, ToCrawl } from './crawl-thread.ts';

/**
 * One scan's crawl on a thread of its own: the browser's protocol traffic and the guard proxy's
 * bytes never pass through the event loop that answers the API.
 */
const request = workerData as CrawlRequest;
try {
  // On Linux this lowers only the calling thread (and what it spawns), not the API's threads.
  setPriority(10);
} catch {
  // not permitted here: the thread keeps the process's priority
}
const port = parentPort!;
const controller = new AbortController();
const send = (message: FromCrawl) => port.postMessage(message);

port.on('message', (message: ToCrawl) => {
  if (message.type === 'abort') controller.abort();
});

crawl({
  ...request,
  policy: addressPolicy(request.allowPrivateNetworks),
  signal: controller.signal,
  onPage: async (pages) => send({ type: 'page', pages }),
})
  .then((result) => send({ type: 'done', result }))
  .catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    send({ type: 'failed', message, expected: error instanceof CrawlError });
  })
  // The thread stays a moment longer, for the second removal of the browser's profile.
  .then(() => new Promise((resolve) => setTimeout(resolve, PROFILE_REMOVAL_RETRY_MS + 200)))
  .finally(() => port.close());
