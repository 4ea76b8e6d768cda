/**
 * The outbox under the worker: claims fair between accounts (one account's backlog or failing
 * endpoint never fills a look), never the same delivery twice when instances claim at once, not from
 * a disabled endpoint; the outbox's bound per account; and a worker that stops at once on close,
 * handing back what it was sending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { claimDue } from '../../../src/modules/webhooks/webhooks.repository.ts';
import { PER_ACCOUNT_PER_TICK } from '../../../src/modules/webhooks/webhook-worker.ts';
import { call, ENGINE } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import type { Tenant } from '../../helpers/tenants.ts';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts';

describe(`the webhook outbox (${ENGINE})`, () => {
  // The worker's first look is a minute away: the tests claim by hand.
  const { t, tenants } = fileApp({
    tenants: ['Busy', 'Quiet', 'Small'] as const,
    env: { WEBHOOK_POLL_INTERVAL_MS: '60000', WEBHOOK_OUTBOX_MAX: '10', RATE_LIMIT_MAX: '100000' },
  });

  async function endpointOf(tenant: Tenant, enabled = true) {
    const id = newId();
    await t.services.db.insertInto('webhook_endpoints').values({
      id, account_id: tenant.account.id, url: 'https://hooks.example.test/', events: ['consent.erased'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', enabled,
    }).execute();
    return id;
  }

  async function due(tenant: Tenant, endpointId: string, count: number) {
    const rows = Array.from({ length: count }, (_, i) => ({
      id: newId(), account_id: tenant.account.id, endpoint_id: endpointId, event: 'consent.erased', payload: '{}',
      next_attempt_at: new Date(Date.now() - 60_000 + i),
    }));
    await t.services.db.insertInto('webhook_deliveries').values(rows).execute();
    return rows.map((row) => row.id);
  }

  const claim = (total = 50) => claimDue(t.services.db, new Date(), new Date(Date.now() + 60_000), PER_ACCOUNT_PER_TICK, total);
  const byAccount = (rows: { account_id: string }[]) => {
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.account_id, (counts.get(row.account_id) ?? 0) + 1);
    return counts;
  };

  it('claims at most a few of each account per look, so a backlog never holds up the others', async () => {
    const [busy, quiet, small] = tenants;
    await due(busy, await endpointOf(busy), 40);
    await due(quiet, await endpointOf(quiet), 3);
    await due(small, await endpointOf(small, false), 4);
    const first = await claim();
    expect(byAccount(first)).toEqual(new Map([[busy.account.id, PER_ACCOUNT_PER_TICK], [quiet.account.id, 3]]));
    expect(first.every((row) => row.attempts === 1 && row.url === 'https://hooks.example.test/')).toBe(true);
    // Claimed ones are not claimed again while their claim holds; the busy account gives its next few.
    const second = await claim();
    expect(byAccount(second)).toEqual(new Map([[busy.account.id, PER_ACCOUNT_PER_TICK]]));
    expect(second.some((row) => first.some((taken) => taken.id === row.id))).toBe(false);
    await t.services.db.deleteFrom('webhook_deliveries').execute();
  });

  it('never gives one delivery to two claims made at once', async () => {
    const [busy, quiet] = tenants;
    const ids = [...await due(busy, await endpointOf(busy), 30), ...await due(quiet, await endpointOf(quiet), 30)];
    const claims = await Promise.all(Array.from({ length: 6 }, () => claim(4)));
    const taken = claims.flat().map((row) => row.id);
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.every((id) => ids.includes(id))).toBe(true);
    const attempts = await t.services.db.selectFrom('webhook_deliveries').select(['id', 'attempts']).where('id', 'in', taken).execute();
    expect(attempts.every((row) => row.attempts === 1)).toBe(true);
    await t.services.db.deleteFrom('webhook_deliveries').execute();
  });

  it('queues no more than WEBHOOK_OUTBOX_MAX deliveries waiting per account', async () => {
    const [, , small] = tenants;
    const endpointId = await endpointOf(small);
    await t.services.webhooks.changed();
    const erase = () => call(t.app, 'POST', '/api/v1/consents/erase', { token: small.tokens.admin, body: { session_id: 'someone' } });
    const waiting = () => t.services.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).execute();
    await due(small, endpointId, 8);
    for (let i = 0; i < 4; i++) expect((await erase()).status).toBe(200);
    // 8 + 2: the bound (10) reached, the other two events are not queued.
    expect((await waiting()).length).toBe(10);
  });
});

describe(`the webhook worker closing (${ENGINE})`, () => {
  const { t, tenants } = fileApp({
    tenants: ['Closing'] as const,
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_TIMEOUT_MS: '30000', RATE_LIMIT_MAX: '100000' },
  });
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('stops at once, handing back the delivery it was sending untried', async () => {
    const [tenant] = tenants;
    receiver.answers.set('/slow', [{ status: 200, delayMs: 60_000 }]);
    const hook = await call(t.app, 'POST', '/api/v1/webhooks', { token: tenant.tokens.admin, body: { webhook: { url: `${receiver.url}/slow`, events: ['consent.erased'] } } });
    await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { session_id: 'x' } });
    await expect.poll(() => receiver.of('/slow').length).toBe(1);
    await t.services.webhooks.close();
    // Handed back untried: had close waited for the attempt, it would have failed after 30 s and counted.
    const [row] = await t.services.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', hook.body.data.id).execute();
    expect(row).toMatchObject({ status: 'pending', attempts: 0, claimed_until: null });
  });
});
