/**
 * A listing's `count` by time window is added up from the daily and hourly rollups plus the partial
 * hours at the window's ends, and an unfiltered page past the first starts where the hourly counts say:
 * both must be exactly what the table holds, at every boundary, after retention removed some days, and
 * with rows that bypassed the writer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { ConsentWriter } from '../../../src/modules/consents/consent-writer.ts';
import type { NewConsent } from '../../../src/modules/consents/consents.repository.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { type Tenant } from '../../helpers/tenants.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const { t, tenants: [tenant, neighbour] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Counts', 'CountsNeighbour'] });
let now: number;
let times: number[];

const consent = (account: Tenant, at: number): NewConsent => ({
  id: newId(), account_id: account.account.id, session_id: `s-${at}`, user_id: null,
  user_preferences: { accept_type: 'all', accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} },
  url: null, user_agent: null, ip_address: null, gpc: false, created_at: new Date(at),
});

beforeAll(async () => {
  now = Date.now();
  // Ten UTC days from 35 days ago: consents at midnight exactly and a millisecond after it, on both
  // sides of the first hour's end, inside an hour, at noon and a millisecond before the next midnight.
  const first = Math.floor((now - 35 * DAY) / DAY) * DAY;
  times = [];
  for (let d = 0; d < 10; d++) for (const offset of [0, 1, HOUR - 1, HOUR, 5 * HOUR + 17, DAY / 2, DAY - 1]) times.push(first + d * DAY + offset);
  const writer = new ConsentWriter(t.services.connection, { maxBatch: 7, maxQueue: 1000, concurrency: 1 });
  for (const at of times) await writer.write(consent(tenant, at));
  for (const at of times.filter((_, i) => i % 3 === 0)) await writer.write(consent(neighbour, at));
  await writer.close();
});

/** Windows with ends at midnights, at hours, on consents, between them, and open on either side. */
function windows(): Array<[number | undefined, number | undefined]> {
  const first = times[0];
  const points = [first - 1, first, first + 1, first + HOUR - 1, first + HOUR, first + 5 * HOUR, first + 5 * HOUR + 17, first + DAY / 2,
    first + DAY, first + DAY + 1, first + 2 * DAY + 7 * HOUR + 3, first + 3 * DAY - 1, first + 3 * DAY, first + 5 * DAY + 7,
    first + 9 * DAY - HOUR, first + 9 * DAY, first + 9 * DAY + DAY / 2, first + 10 * DAY, now];
  const pairs: Array<[number | undefined, number | undefined]> = [];
  for (const a of [undefined, ...points]) for (const b of [undefined, ...points]) if (a === undefined || b === undefined || a < b) pairs.push([a, b]);
  return pairs.filter(([a, b]) => a !== undefined || b !== undefined);
}

async function expectExactCounts(held: number[]) {
  for (const [after, before] of windows()) {
    const query: Record<string, string> = { limit: '1' };
    if (after !== undefined) query.created_after = new Date(after).toISOString();
    if (before !== undefined) query.created_before = new Date(before).toISOString();
    const res = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query });
    const want = held.filter((at) => (after === undefined || at > after) && (before === undefined || at < before)).length;
    expect({ query, count: res.body.pagination?.count }).toEqual({ query, count: want });
  }
}

/** Every page of three, from every offset and in both orders, holds exactly the consents it should. */
async function expectExactPages(held: number[]) {
  for (const order of ['desc', 'asc'] as const) {
    const sorted = [...held].sort((a, b) => (order === 'desc' ? b - a : a - b)).map((at) => new Date(at).toISOString());
    for (let offset = 0; offset <= held.length + 1; offset++) {
      const query = { limit: '3', offset: String(offset), order };
      const res = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query });
      expect({ query, page: res.body.data?.map((c: { created_at: string }) => c.created_at) }).toEqual({ query, page: sorted.slice(offset, offset + 3) });
    }
  }
}

describe('GET /consents count by time window, and pages by offset', () => {
  it('are exact at every boundary, then after retention, then with a row written around the writer', async () => {
    await expectExactCounts(times);
    await expectExactPages(times);

    const patch = await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.admin, body: { account: { consent_retention_days: 30 } } });
    expect(patch.status).toBe(200);
    const removed = await t.services.retention.run(new Date(now));
    const cutoff = now - 30 * DAY;
    expect(removed).toBe(times.filter((at) => at < cutoff).length);
    expect(removed).toBeGreaterThan(4);
    const kept = times.filter((at) => at >= cutoff);
    await expectExactCounts(kept);
    await expectExactPages(kept);

    const outside = times[25] + 5;
    await t.services.db.insertInto('consents')
      .values({ id: newId(), account_id: tenant.account.id, session_id: 'by-hand', gpc: false, accept_type: 'all', created_at: new Date(outside) }).execute();
    await expectExactCounts([...kept, outside]);
    await expectExactPages([...kept, outside]);
  });
});
