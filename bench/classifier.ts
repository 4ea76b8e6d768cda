/**
 * `npm run bench:classifier`: nanoseconds per classification of one storage item, in memory, on
 * the lookup path (names the knowledge lists, and concrete names of listed patterns) and on the
 * model path (names nobody lists). BENCH_RUNS (3) runs of BENCH_CLASSIFICATIONS (200000) each;
 * the median run is the figure.
 */
import { loadClassifier, type ItemToClassify } from '../src/ai/classifier/classifier.ts';
import { factsFromOpenCookieDatabase } from '../src/ai/knowledge/knowledge.ts';
import { loadOpenCookieDatabase } from '../src/ai/knowledge/sources.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CLASSIFICATIONS = Number(process.env.BENCH_CLASSIFICATIONS ?? 200_000);

const started = performance.now();
const classifier = loadClassifier();
const loadMs = performance.now() - started;

const facts = factsFromOpenCookieDatabase(loadOpenCookieDatabase());
const suffixes = ['K2J4XQ9', '1234', 'abc', 'X'];
const sets: Record<string, ItemToClassify[]> = {
  'listed names (exact lookup)': facts.filter((f) => !f.pattern).map((f) => ({ name: f.name, domain: f.domain })),
  'concrete names of listed patterns': facts.filter((f) => f.pattern).flatMap((f) => suffixes.map((s) => ({ name: `${f.name}${s}` }))),
  'names nobody lists (model)': Array.from({ length: 2000 }, (_, i) => ({
    name: `${['app', 'shop', 'zq', 'site', 'my'][i % 5]}_${['pref', 'uid', 'state', 'x', 'seen'][(i >> 3) % 5]}_${i}`,
    domain: i % 3 === 0 ? 'stats.example.net' : '',
    duration: ['session', '1 year', '30 days', ''][i % 4],
  })),
};

function nsPerClassification(items: ItemToClassify[]): number {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < CLASSIFICATIONS; i++) sink += classifier.classify(items[i % items.length]).guess?.confidence ?? 0;
  const elapsed = Number(process.hrtime.bigint() - start);
  if (sink < 0) throw new Error('unreachable');
  return elapsed / CLASSIFICATIONS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(`classifier built in ${loadMs.toFixed(0)} ms (knowledge loaded, model trained)`);
for (const [name, items] of Object.entries(sets)) {
  nsPerClassification(items);
  const runs = Array.from({ length: RUNS }, () => nsPerClassification(items));
  console.log(`${name.padEnd(36)} ${String(items.length).padStart(5)} items  median ${median(runs).toFixed(0).padStart(6)} ns/classification  runs ${runs.map((r) => r.toFixed(0)).join(' ')}`);
}
