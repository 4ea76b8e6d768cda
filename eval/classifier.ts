/**
 * `npm run eval:classifier`: how well the AI picks a storage item's category, measured on items
 * its knowledge was not built from.
 *
 * The Open Cookie Database is split by a hash of the name (eval/held-out.ts). The classifier under
 * test is built from the build side only: its lookup tables and its model. third-party-web
 * (domains) is a separate source and is used whole. The held-out side, committed as
 * eval/held-out-storage-items.json, is classified and compared with its labels. The model's
 * decision threshold is chosen by cross-validation inside the build side, never on the held-out
 * items; the figure printed here lets the shipped default be checked against it.
 *
 * `--write-held-out` rewrites the committed held-out file from the installed data.
 */
import { createHash } from 'node:crypto';
import { Classifier, DEFAULT_CLASSIFIER_OPTIONS, type Classification } from '../src/ai/classifier/classifier.ts';
import { STANDARD_CATEGORIES } from '../src/ai/knowledge/categories.ts';
import { factsFromOpenCookieDatabase, Knowledge } from '../src/ai/knowledge/knowledge.ts';
import { loadOpenCookieDatabase, loadThirdPartyWeb, type OpenCookieDatabaseRow, type ThirdPartyEntity } from '../src/ai/knowledge/sources.ts';
import { labelledItems, readHeldOut, splitKey, splitRows, writeHeldOut, type LabelledItem } from './held-out.ts';

const TARGET_PRECISION = 0.9;
const FOLDS = 10;

interface Outcome {
  expected: string;
  predicted: string;
  decided: boolean;
  correct: boolean;
  confidence: number;
  path: string;
}

/** `open-cookie-database: exact name "_ga" (Google)` → `open-cookie-database: exact name`. */
function pathOf(result: Classification): string {
  return (result.guess?.source ?? 'none').replace(/ "[^"]*".*$/, '').replace(/^(model):.*/, '$1').replace(/^(open-cookie-database: )\d+ /, '$1');
}

function run(classifier: Classifier, items: LabelledItem[]): Outcome[] {
  return items.map((item) => {
    const result = classifier.classify({ name: item.name, domain: item.domain, duration: item.duration });
    return {
      expected: item.category,
      predicted: result.guess?.value ?? 'none',
      decided: result.category !== undefined,
      correct: result.guess?.value === item.category,
      confidence: result.guess?.confidence ?? 0,
      path: pathOf(result),
    };
  });
}

function build(rows: OpenCookieDatabaseRow[], entities: ThirdPartyEntity[], modelThreshold: number): Classifier {
  const facts = factsFromOpenCookieDatabase(rows);
  return Classifier.build(new Knowledge(facts, entities), facts, { modelThreshold });
}

function summary(outcomes: Outcome[]) {
  const decided = outcomes.filter((o) => o.decided);
  const correct = decided.filter((o) => o.correct).length;
  return {
    items: outcomes.length,
    decided: decided.length,
    correct,
    accuracyOnDecided: decided.length ? correct / decided.length : 0,
    decidedShare: outcomes.length ? decided.length / outcomes.length : 0,
  };
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/** The lowest model threshold whose cross-validated precision, all paths together, reaches the target. */
function crossValidatedThreshold(rows: OpenCookieDatabaseRow[], entities: ThirdPartyEntity[]) {
  const fold = (cookie: string) => createHash('sha256').update(`fold:${splitKey(cookie)}`).digest().readUInt32BE(0) % FOLDS;
  const outcomes: Outcome[] = [];
  for (let k = 0; k < FOLDS; k++) {
    const classifier = build(rows.filter((row) => fold(row.cookie) !== k), entities, 0);
    outcomes.push(...run(classifier, labelledItems(rows.filter((row) => fold(row.cookie) === k))));
  }
  for (let t = 50; t <= 99; t++) {
    const threshold = t / 100;
    const at = outcomes.map((o) => ({ ...o, decided: o.path !== 'model' || o.confidence >= threshold }));
    const figures = summary(at);
    if (figures.accuracyOnDecided >= TARGET_PRECISION) return { threshold, ...figures };
  }
  return undefined;
}

function main() {
  const rows = loadOpenCookieDatabase();
  const entities = loadThirdPartyWeb();
  if (process.argv.includes('--write-held-out')) writeHeldOut(labelledItems(splitRows(rows, new Set()).heldOut));
  const heldOut = readHeldOut();
  const { build: buildRows } = splitRows(rows, new Set(heldOut.items.map((item) => splitKey(item.name))));

  const threshold = DEFAULT_CLASSIFIER_OPTIONS.modelThreshold;
  const outcomes = run(build(buildRows, entities, threshold), heldOut.items);
  const overall = summary(outcomes);
  const cv = crossValidatedThreshold(buildRows, entities);

  const byPath = new Map<string, Outcome[]>();
  for (const o of outcomes) byPath.set(o.path, [...(byPath.get(o.path) ?? []), o]);
  const confusion: Record<string, Record<string, number>> = {};
  for (const o of outcomes.filter((outcome) => outcome.decided)) {
    confusion[o.expected] ??= {};
    confusion[o.expected][o.predicted] = (confusion[o.expected][o.predicted] ?? 0) + 1;
  }

  console.log(`Open Cookie Database rows: ${rows.length}; build side ${buildRows.length} rows; held out ${heldOut.items.length} labelled items`);
  console.log(`Model threshold: ${threshold} (${FOLDS}-fold cross-validation on the build side suggests ${cv?.threshold ?? 'none'} for ${percent(TARGET_PRECISION)} precision${cv ? `, deciding ${percent(cv.decidedShare)} of its items` : ''})`);
  console.log('');
  console.log(`Decided:               ${overall.decided} of ${overall.items} (${percent(overall.decidedShare)})`);
  console.log(`Correct when decided:  ${overall.correct} of ${overall.decided} (${percent(overall.accuracyOnDecided)})`);
  console.log(`Declined:              ${overall.items - overall.decided} (${percent(1 - overall.decidedShare)})`);
  console.log('');
  console.log('By the knowledge that decided:');
  for (const [path, list] of [...byPath].sort()) {
    const s = summary(list);
    console.log(`  ${path.padEnd(50)} items ${String(s.items).padStart(4)}  decided ${String(s.decided).padStart(4)}  correct ${percent(s.accuracyOnDecided)}`);
  }
  console.log('');
  console.log('Threshold trade-off on the held-out items (for reading only; the threshold is never chosen here):');
  for (const t of [0.5, 0.6, threshold, 0.75, 0.85]) {
    const s = summary(outcomes.map((o) => ({ ...o, decided: o.path !== 'model' || o.confidence >= t })));
    console.log(`  ${t.toFixed(2)}  decided ${percent(s.decidedShare).padStart(6)}  correct ${percent(s.accuracyOnDecided)}`);
  }
  console.log('');
  console.log(`Confusion on decided items (expected → predicted): ${JSON.stringify(confusion)}`);
  console.log(`Categories: ${STANDARD_CATEGORIES.join(', ')}`);
  console.log(JSON.stringify({ heldOutItems: overall.items, decided: overall.decided, correct: overall.correct, accuracyOnDecided: overall.accuracyOnDecided, decidedShare: overall.decidedShare, modelThreshold: threshold, crossValidatedThreshold: cv?.threshold ?? null }));
}

main();
