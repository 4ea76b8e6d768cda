/**
 * The visitor sketch's count is monotone: a sketch contained in another (none of its registers
 * above the other's) never counts more. The consent rate's numerator sketch is always contained in
 * its denominator's, so the rate cannot pass 1; these sketches are built near the switch between
 * linear counting and the raw estimate, where the paper's rule breaks this.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HLL_PRECISION, HyperLogLog } from '../../../src/lib/hyperloglog.ts';

const REGISTERS = 1 << HLL_PRECISION;

/** A sketch from raw register values: `ranks[i]` for register i, 0 past the array. */
const sketchOf = (ranks: number[]) => new HyperLogLog(Uint8Array.from({ length: REGISTERS }, (_, i) => ranks[i] ?? 0));

describe('HyperLogLog.count', () => {
  it('never counts a contained sketch above the one containing it', () => {
    // Registers as a sketch holds them around the switch (about 2.5 m distinct values): ranks from 1
    // to 2–4, none or a few empty; the contained one lowers some registers, emptying some.
    const ranks = fc.tuple(fc.integer({ min: 2, max: 4 }), fc.constantFrom(0, 1)).chain(([top, empty]) => fc.array(
      fc.oneof({ arbitrary: fc.constant(0), weight: empty }, { arbitrary: fc.integer({ min: 1, max: top }), weight: 60 }),
      { minLength: REGISTERS, maxLength: REGISTERS },
    ));
    fc.assert(fc.property(ranks, fc.array(fc.integer({ min: 0, max: REGISTERS - 1 }), { maxLength: 200 }), fc.integer({ min: 1, max: 4 }),
      (larger, lowered, by) => {
        const smaller = [...larger];
        for (const i of lowered) smaller[i] = Math.max(0, smaller[i] - by);
        expect(sketchOf(smaller).count()).toBeLessThanOrEqual(sketchOf(larger).count());
      }), { numRuns: 300 });
  });

  it('stays monotone where one sketch is still linear counting and the other is full', () => {
    // One register empty against none: the paper's rule counts the first by linear counting
    // (m ln m, about 15,600) and the second, all registers at 1, by the raw estimate (about 2,950).
    const full = sketchOf(Array.from({ length: REGISTERS }, () => 1));
    const one = sketchOf(Array.from({ length: REGISTERS }, (_, i) => (i === 0 ? 0 : 1)));
    expect(one.count()).toBeLessThanOrEqual(full.count());
  });

  it('counts distinct values within its error, small and large', () => {
    for (const n of [0, 1, 10, 100, 1_000, 5_000, 20_000, 100_000]) {
      const sketch = new HyperLogLog();
      for (let i = 0; i < n; i++) sketch.add(`visitor-${i}`);
      expect(Math.abs(sketch.count() - n), `${n} values`).toBeLessThanOrEqual(Math.max(1, n * 0.07));
    }
  });
});
