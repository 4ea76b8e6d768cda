import { Worker } from 'node:worker_threads';
import { CrawlError } from './crawl-error.ts';
import type { CrawlOptions, CrawlResult } from './crawl.ts';

export type CrawlRequest = Pick<CrawlOptions, 'chromiumPath' | 'startingUrl' | 'maxPages' | 'crawlSubdomains' | 'pageTimeoutMs'> & {
  allowPrivateNetworks: boolean;
};
export type ToCrawl = { type: 'abort' };
export type FromCrawl =
  | { type: 'page'; pages: number }
  | { type: 'done'; result: CrawlResult }
  | { type: 'failed'; message: string; expected: boolean };

/**
 * From the `npm start` bundle the worker is `crawl-worker.js` beside `server.js` (its own entry
 * point); from the sources (tsx, tests) it is the TypeScript file beside this one, which the thread
 * loads through tsx's loader.
 */
function startWorker(request: CrawlRequest): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./crawl-worker.js', import.meta.url), { workerData: request });
  const source = new URL('./crawl-worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(boot, { eval: true, workerData: request });
}

/**
 * Runs `crawl` on a worker thread. `onPage` hears of every page (its failure stops the crawl);
 * aborting the signal stops the browser.
 */
export function crawlInThread(
  request: CrawlRequest,
  options: { signal: AbortSignal; onPage: (pages: number) => Promise<void> },
): Promise<CrawlResult> {
  const worker = startWorker(request);
  const abort = () => worker.postMessage({ type: 'abort' } satisfies ToCrawl);
  if (options.signal.aborted) abort();
  options.signal.addEventListener('abort', abort);
  return new Promise<CrawlResult>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal.removeEventListener('abort', abort);
      fn();
    };
    worker.on('message', (message: FromCrawl) => {
      if (message.type === 'page') {
        options.onPage(message.pages).catch(() => abort());
      } else if (message.type === 'done') {
        settle(() => resolve(message.result));
      } else {
        settle(() => reject(message.expected ? new CrawlError(message.message) : new Error(message.message)));
      }
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`The crawl stopped (thread exit code ${code})`))));
  });
}
