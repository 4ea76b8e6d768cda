import { describe, expect, it } from 'vitest';
import { MemoryLimiter } from '../../src/http/rate-limit.ts';

describe('in-memory rate limit windows', () => {
  it('counts a key up to its points, refuses past them, and starts again when the window ends', () => {
    const limiter = new MemoryLimiter(3, 60_000);
    const t0 = 1_000_000;
    expect(limiter.count('a', t0)).toEqual({ remaining: 2, resetSeconds: 60, limited: false });
    expect(limiter.count('a', t0 + 1)).toEqual({ remaining: 1, resetSeconds: 60, limited: false });
    expect(limiter.count('a', t0 + 29_500)).toEqual({ remaining: 0, resetSeconds: 31, limited: false });
    expect(limiter.count('a', t0 + 59_999)).toEqual({ remaining: 0, resetSeconds: 1, limited: true });
    expect(limiter.count('a', t0 + 60_000)).toEqual({ remaining: 2, resetSeconds: 60, limited: false });
  });

  it('keeps each key to its own window', () => {
    const limiter = new MemoryLimiter(1, 1_000);
    expect(limiter.count('a', 0).limited).toBe(false);
    expect(limiter.count('a', 10).limited).toBe(true);
    expect(limiter.count('b', 10).limited).toBe(false);
    expect(limiter.count('b', 500).limited).toBe(true);
    expect(limiter.count('a', 1_000).limited).toBe(false);
    expect(limiter.count('b', 1_000).limited).toBe(true);
  });

  it('drops the windows that ended, so that many one-off callers do not grow memory', () => {
    const limiter = new MemoryLimiter(10, 1_000);
    for (let i = 0; i < 1_000; i++) limiter.count(`ip:${i}`, i);
    expect(limiter.keys).toBe(1_000);
    // At t = 2,000 every window above has ended; the next new window drops them all.
    limiter.count('late', 2_000);
    expect(limiter.keys).toBe(1);
    // A renewed window moves behind the ones still open and is dropped only once it ends.
    limiter.count('a', 3_000);
    limiter.count('b', 3_500);
    limiter.count('a', 4_000);
    limiter.count('c', 4_600);
    expect(limiter.keys).toBe(2); // b ended at 4,500; a's second window runs to 5,000
    limiter.count('e', 4_900);
    expect(limiter.keys).toBe(3);
    limiter.count('d', 5_000);
    expect(limiter.keys).toBe(3); // a dropped; c, e, d open
    expect(limiter.count('a', 5_001)).toMatchObject({ remaining: 9 });
  });

  it('shows a window without counting, and takes a count back', () => {
    const limiter = new MemoryLimiter(2, 60_000);
    expect(limiter.peek('a', 0)).toEqual({ remaining: 2, resetSeconds: 60, limited: false });
    limiter.count('a', 0);
    limiter.count('a', 1_000);
    expect(limiter.peek('a', 1_000)).toEqual({ remaining: 0, resetSeconds: 59, limited: true });
    limiter.refund('a', 2_000);
    expect(limiter.peek('a', 2_000)).toEqual({ remaining: 1, resetSeconds: 58, limited: false });
    expect(limiter.count('a', 2_000).limited).toBe(false);
    expect(limiter.count('a', 2_000).limited).toBe(true);
    // Nothing to take back from an ended or unknown window; a refund opens none.
    limiter.refund('a', 60_000);
    limiter.refund('b', 60_000);
    expect(limiter.peek('a', 60_000)).toEqual({ remaining: 2, resetSeconds: 60, limited: false });
    expect(limiter.count('b', 60_000).remaining).toBe(1);
  });
});
