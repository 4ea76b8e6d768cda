/**
 * Pageviews and visitors counted in memory: a failed flush keeps its counts for the next one, and
 * a long outage holds a bounded number of sessions (pageviews are never lost).
 */
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { VisitCounter } from '../../../src/modules/stats/visit-counter.ts';
import { createTenant } from '../../helpers/tenants.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t } = fileApp();

type Line = { level: string; fields: object; message: string };

/** A counter of its own, flushed only when a test says so, and the lines it logs. */
function loggingCounter(maxSessions: number) {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
  const log = { warn: at('warn'), error: at('error') } as unknown as FastifyBaseLogger;
  return { lines, counter: new VisitCounter(t.services.db, { flushIntervalMs: 3_600_000, maxSessions }, log) };
}

/** Runs `work` while the daily stats table is away, so that every flush fails, and puts it back. */
async function withStatsAway(work: () => Promise<void>) {
  await sql`alter table account_daily_stats rename to account_daily_stats_away`.execute(t.services.db);
  try {
    await work();
  } finally {
    await sql`alter table account_daily_stats_away rename to account_daily_stats`.execute(t.services.db);
  }
}

async function dayRow(accountId: string) {
  return t.services.db.selectFrom('account_daily_stats').select(['pageviews', 'visitors']).where('account_id', '=', accountId).executeTakeFirst();
}

describe('VisitCounter', () => {
  it('keeps the counts of a failed flush for the next one', async () => {
    const tenant = await createTenant(t.services, 'VisitsKept');
    const { counter, lines } = loggingCounter(1000);
    await withStatsAway(async () => {
      for (const session of ['a', 'b', 'a', 'c']) counter.count(tenant.account.id, session);
      await counter.flush();
      expect(lines.map((l) => l.level)).toEqual(['error']);
    });
    await counter.close();
    expect(await dayRow(tenant.account.id)).toEqual({ pageviews: 4, visitors: 3 });
  });

  it('gives callers who come while a flush waits its turn that flush, which writes what they counted', async () => {
    const tenant = await createTenant(t.services, 'VisitsShared');
    const counter = new VisitCounter(t.services.db, { flushIntervalMs: 3_600_000, maxSessions: 1000 });
    counter.count(tenant.account.id, 'a');
    const first = counter.flush();
    counter.count(tenant.account.id, 'b');
    // Many reads of the status at once: one queued write, not one each.
    const reads = [counter.written(), counter.written(), counter.flush()];
    for (const read of reads) expect(read).toBe(first);
    await Promise.all(reads);
    expect(await dayRow(tenant.account.id)).toEqual({ pageviews: 2, visitors: 2 });
    // Nothing held: a read waits for nothing new.
    expect(counter.written()).toBe(first);
    await counter.close();
  });

  it('holds at most four times maxSessions sessions while flushes fail, and still counts every pageview', async () => {
    const tenant = await createTenant(t.services, 'VisitsBounded');
    const { counter, lines } = loggingCounter(5);
    await withStatsAway(async () => {
      for (let n = 0; n < 100; n++) counter.count(tenant.account.id, `s-${n}`);
      await counter.flush();
      await counter.flush();
      const failures = lines.filter((l) => l.level === 'error').length;
      expect(failures).toBeGreaterThan(0);
      expect(failures).toBeLessThanOrEqual(3);
    });
    await counter.close();
    expect(await dayRow(tenant.account.id)).toEqual({ pageviews: 100, visitors: 20 });
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      { level: 'warn', fields: { sessions: 80 }, message: 'visit counts held too long: these sessions were counted as pageviews only' },
    ]);
  });
});
