import { hash } from 'node:crypto';

/** 2^11 one-byte registers (2 KiB): a standard error of about 1.04 / sqrt(2048) = 2.3%. */
export const HLL_PRECISION = 11;
const REGISTERS = 1 << HLL_PRECISION;
const ALPHA = 0.7213 / (1 + 1.079 / REGISTERS);
/** 2^-rank for every rank a register can hold. */
const INVERSE_POWERS = Float64Array.from({ length: 65 }, (_, rank) => 2 ** -rank);

/** Below this estimate linear counting is used, above it the raw estimate (Flajolet et al.'s 2.5 m). */
const LINEAR_LIMIT = 2.5 * REGISTERS;

/**
 * A HyperLogLog counter of distinct strings (Flajolet et al., 2007) with linear counting below
 * 2.5 m. Merging two is the register-wise maximum, so that the visitors of a week or a month are
 * the union of its days' sketches.
 *
 * The count is monotone: a sketch none of whose registers is above another's never counts more
 * than that one. (The paper switches on the raw estimate, which lets a smaller sketch's linear count
 * pass a larger one's raw count near the switch.) The consent rate relies on this: its numerator's
 * sketch is always contained in its denominator's.
 */
export class HyperLogLog {
  readonly registers: Uint8Array;

  constructor(registers?: Uint8Array) {
    if (registers && registers.length !== REGISTERS) throw new Error(`a sketch has ${REGISTERS} registers`);
    this.registers = registers ? new Uint8Array(registers) : new Uint8Array(REGISTERS);
  }

  add(value: string): void {
    const digest = hash('md5', value, 'buffer');
    const high = digest.readUInt32BE(0);
    const low = digest.readUInt32BE(4);
    const index = high >>> (32 - HLL_PRECISION);
    // The rank of the first 1-bit in the 53 bits after the index (21 from `high`, 32 from `low`).
    const rest = (high << HLL_PRECISION) >>> 0;
    const rank = rest !== 0 ? Math.clz32(rest) + 1 : 32 - HLL_PRECISION + (low !== 0 ? Math.clz32(low) + 1 : 33);
    if (rank > this.registers[index]) this.registers[index] = rank;
  }

  merge(other: Uint8Array | HyperLogLog): this {
    const registers = other instanceof HyperLogLog ? other.registers : other;
    for (let i = 0; i < REGISTERS; i++) if (registers[i] > this.registers[i]) this.registers[i] = registers[i];
    return this;
  }

  count(): number {
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < REGISTERS; i++) {
      sum += INVERSE_POWERS[this.registers[i]];
      if (this.registers[i] === 0) zeros++;
    }
    // Linear counting grows as registers fill, the raw estimate as any grows; choosing by the linear
    // count, and never answering less than the switch above it, keeps the whole count monotone.
    const linear = zeros > 0 ? REGISTERS * Math.log(REGISTERS / zeros) : Infinity;
    if (linear <= LINEAR_LIMIT) return Math.round(linear);
    return Math.round(Math.max((ALPHA * REGISTERS * REGISTERS) / sum, LINEAR_LIMIT));
  }
}
