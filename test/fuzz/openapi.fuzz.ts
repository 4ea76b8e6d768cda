/**
 * The full fuzzing run (`npm run test:fuzz`): FUZZ_RUNS requests (20,000 by default) drawn from
 * FUZZ_SEED (a new seed each run unless given; it is printed, and replaying it sends the same
 * requests), then the tenant-leak check on the records the run left behind.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ENGINE } from '../helpers/app.ts';
import { probeLeaks } from './leaks.ts';
import { describeFindings, fuzz } from './run.ts';
import { buildWorld, snapshotOf, type World } from './world.ts';

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2_147_483_647;
const runs = Number(process.env.FUZZ_RUNS ?? 20_000);

let world: World;
beforeAll(async () => {
  world = await buildWorld();
});
afterAll(async () => {
  await world.close();
});

it(`fuzzes every operation: ${runs} requests`, async () => {
  console.log(`fuzz (${ENGINE}): seed ${seed}, ${runs} requests; replay with FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run test:fuzz`);
  const leaksBefore = await probeLeaks(world);
  expect(leaksBefore.leaks).toEqual([]);
  expect(leaksBefore.reached).toEqual([]);
  const before = await snapshotOf(world, world.b);
  const result = await fuzz(world, { seed, runs, log: console.log });
  console.log(`fuzz (${ENGINE}): ${result.requests} requests over ${result.operations} operations in ${result.ms} ms; statuses ${JSON.stringify(result.statuses)}; slowest ${result.slowest.ms} ms: ${result.slowest.request}`);
  expect(result.findings, describeFindings(result)).toEqual([]);
  expect(result.requests).toBe(runs);
  expect(await snapshotOf(world, world.b)).toEqual(before);
  // The run left records of every kind behind in A: none of them may show B anything either.
  const leaksAfter = await probeLeaks(world);
  expect(leaksAfter.leaks.filter((probe) => probe.leaked.includes(world.b.marker))).toEqual([]);
});
