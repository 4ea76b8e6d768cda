/**
 * Graceful drain: the real server process is sent SIGTERM while consents are being recorded. For
 * the grace (SHUTDOWN_GRACE_S) /readyz answers 503 while consents are still recorded; a request in
 * flight when the signal comes (its body half sent) is answered; the process exits 0 and every
 * acknowledged consent is stored, with the page views its consents counted (held in memory until
 * the stop: VISIT_FLUSH_INTERVAL_MS is longer than the test).
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/database.ts';
import { seedDemo } from '../../src/demo.ts';
import { ENGINE } from '../helpers/app.ts';
import { processDatabase } from '../helpers/process-database.ts';
import { startServer } from '../helpers/server-process.ts';

const { env, database } = processDatabase('drain', {
  WIDGET_RATE_LIMIT_PER_MIN: '100000000', RATE_LIMIT_MAX: '100000000', VISIT_FLUSH_INTERVAL_MS: '600000',
});

const GRACE_S = 2;

const consentBody = (session: string) => JSON.stringify({ consent: { session_id: session, user_preferences: { accept_type: 'all' } } });

/** A consent POST whose body is sent in two parts: the second when `rest` resolves. Answers status and body. */
function slowConsent(url: string, accountId: string, session: string, rest: Promise<void>): Promise<{ status: number; body: string }> {
  const body = consentBody(session);
  return new Promise((resolve, reject) => {
    const req = request(`${url}/widget/${accountId}/consents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      agent: false,
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    void rest.then(() => req.end(body.slice(10)));
  });
}

describe(`graceful drain (${ENGINE})`, () => {
  it('serves through the grace with /readyz 503, answers what is in flight, stores every acknowledged consent', async () => {
    const seeding = database();
    await migrate(seeding, env.DATABASE_SCHEMA);
    const { account } = await seedDemo(seeding.kysely);
    await seeding.close();

    const server = await startServer({ ...env, SHUTDOWN_GRACE_S: String(GRACE_S) });
    const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
    const acknowledged: string[] = [];
    const refused: number[] = [];
    let signalledAt = Infinity;
    const afterSignal: string[] = [];
    let sequence = 0;
    let stop = false;
    const loop = async () => {
      while (!stop) {
        const session = `drain-${++sequence}`;
        const sentAt = Date.now();
        try {
          const res = await fetch(`${server.url}/widget/${account.id}/consents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: consentBody(session) });
          if (res.status === 201) {
            acknowledged.push(session);
            if (sentAt > signalledAt) afterSignal.push(session);
          } else refused.push(res.status);
          await res.arrayBuffer();
        } catch {
          return; // the listener has closed: the grace is over
        }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    while (acknowledged.length < 100) await new Promise((resolve) => setTimeout(resolve, 5));

    // A request in flight: headers and part of its body sent before the signal, the rest after.
    let sendRest!: () => void;
    const slow = slowConsent(server.url, account.id, 'drain-in-flight', new Promise<void>((resolve) => (sendRest = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    signalledAt = Date.now();
    server.process.kill('SIGTERM');

    // During the grace: not ready, still serving.
    await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 1_500, interval: 50 }).toBe(503);
    const readyAnswer = await fetch(`${server.url}/readyz`);
    expect(readyAnswer.status).toBe(503);
    expect(readyAnswer.headers.get('connection')).toBe('close');
    await expect.poll(() => afterSignal.length, { timeout: 1_500, interval: 20 }).toBeGreaterThan(20);
    setTimeout(sendRest, 500);
    const inFlight = await slow;
    expect(inFlight.status, inFlight.body).toBe(201);
    acknowledged.push('drain-in-flight');

    await Promise.all(loops);
    stop = true;
    const code = await exited;
    const drainedFor = Date.now() - signalledAt;
    expect(code).toBe(0);
    expect(drainedFor).toBeGreaterThanOrEqual(GRACE_S * 1000);
    expect(refused).toEqual([]);

    const check = database();
    try {
      const rows = await check.kysely.selectFrom('consents').select(['session_id', (eb) => eb.fn.countAll<number>().as('copies')])
        .where('account_id', '=', account.id).groupBy('session_id').execute();
      const stored = new Map(rows.map((row) => [row.session_id, Number(row.copies)]));
      const lost = acknowledged.filter((session) => !stored.has(session));
      const duplicated = [...stored].filter(([, copies]) => copies > 1);
      expect({ lost, duplicated, extra: rows.length - acknowledged.length }).toEqual({ lost: [], duplicated: [], extra: 0 });
      // Each consent counted a page view, held in memory until the stop wrote it.
      const views = await check.kysely.selectFrom('account_daily_stats').select((eb) => eb.fn.sum<number>('pageviews').as('views'))
        .where('account_id', '=', account.id).executeTakeFirst();
      expect(Number(views?.views)).toBe(acknowledged.length);
    } finally {
      await check.close();
    }
  }, 180_000);
});
