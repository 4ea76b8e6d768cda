/** The retry schedule and the comparison of two scans, without a database. */
import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../../src/modules/webhooks/webhook-worker.ts';
import { scanChanges } from '../../../src/modules/scans/scan-changes.ts';
import type { StoredReport } from '../../../src/modules/scans/scans.schema.ts';

describe('retryDelay', () => {
  it('triples from the base, with ±20% jitter, capped at six hours', () => {
    const low = () => 0;
    const high = () => 0.999999;
    expect([1, 2, 3, 4].map((n) => retryDelay(5_000, n, () => 0.5))).toEqual([5_000, 15_000, 45_000, 135_000]);
    expect(retryDelay(5_000, 1, low)).toBe(4_000);
    expect(retryDelay(5_000, 1, high)).toBe(6_000);
    expect(retryDelay(5_000, 30, () => 0.5)).toBe(6 * 3_600_000);
    // Within the default day, about fourteen attempts.
    let at = 0;
    let attempts = 0;
    while (at <= 86_400_000) at += retryDelay(5_000, ++attempts, () => 0.5);
    expect(attempts).toBeGreaterThan(10);
    expect(attempts).toBeLessThan(20);
  });
});

describe('scanChanges', () => {
  const item = (name: string, domain: string, storage_type: 'cookie' | 'local_storage') => ({ name, domain, storage_type });
  it('finds items new and gone by storage, domain (a leading dot and case aside) and name', () => {
    const previous = { storage_items: [item('a', '.Example.com', 'cookie'), item('b', 'example.com', 'cookie'), item('a', 'example.com', 'local_storage')] } as unknown as StoredReport;
    const changes = scanChanges('p', previous, [item('a', 'example.com', 'cookie'), item('c', 'example.com', 'cookie'), item('c', 'example.com', 'cookie')]);
    expect(changes).toEqual({
      previous_scan_id: 'p',
      new_items: [item('c', 'example.com', 'cookie')],
      gone_items: [item('b', 'example.com', 'cookie'), item('a', 'example.com', 'local_storage')],
    });
  });
});
