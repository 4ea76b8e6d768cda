/**
 * Webhooks through the API and the worker, to a real HTTP receiver on loopback that verifies every
 * signature with the standardwebhooks package: endpoints (secret shown once, bounds, validation),
 * batched consent.recorded, consent.erased, retries after 500s and timeouts, parking after the
 * retry window, "send again", disabling after failing with the admins emailed, and the address
 * guard at creation and at send time. Timings are short through the configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINE } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts';
import type { Tenant } from '../../helpers/tenants.ts';

const FAST = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_POLL_INTERVAL_MS: '50',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  RATE_LIMIT_MAX: '100000',
};

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const consent = (session: string) => ({ consent: { session_id: session, user_preferences: { accept_type: 'all' } } });

/** Creates an endpoint at `path` of the receiver and tells the receiver its secret. */
async function endpoint(app: Parameters<typeof call>[0], tenant: Tenant, path: string, events: string[]) {
  const res = await call(app, 'POST', '/api/v1/webhooks', { token: tenant.tokens.admin, body: { webhook: { url: `${receiver.url}${path}`, events } } });
  expect(res.status).toBe(201);
  receiver.secrets.set(path, res.body.secret);
  return res.body.data.id as string;
}

describe(`webhooks (${ENGINE})`, () => {
  const { t, tenants } = fileApp({ tenants: ['Hooks', 'Other'] as const, env: { ...FAST, WEBHOOK_RETRY_WINDOW_S: '6', WEBHOOKS_PER_ACCOUNT_MAX: '4' } });
  const api = (method: string, url: string, token: string, body?: unknown) => call(t.app, method, url, { token, body });

  async function deliveries(tenant: Tenant, id: string) {
    const res = await api('GET', `/api/v1/webhooks/${id}/deliveries`, tenant.tokens.member);
    expect(res.status).toBe(200);
    return res.body.data as Array<Record<string, any>>;
  }

  it('creates, lists, changes and deletes endpoints; the secret is shown once; the count is bounded', async () => {
    const [tenant] = tenants;
    const res = await api('POST', '/api/v1/webhooks', tenant.tokens.admin, {
      webhook: { url: `${receiver.url}/crud#x`, events: ['scan.completed', 'consent.recorded', 'scan.completed'], description: 'CRM' },
    });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.body.data).toMatchObject({
      url: `${receiver.url}/crud`, events: ['consent.recorded', 'scan.completed'], description: 'CRM', enabled: true, disabled_reason: null,
    });
    const id = res.body.data.id;
    const list = await api('GET', '/api/v1/webhooks', tenant.tokens.member);
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([id]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    expect(JSON.stringify((await api('GET', `/api/v1/webhooks/${id}`, tenant.tokens.member)).body)).not.toContain(res.body.secret);

    const changed = await api('PATCH', `/api/v1/webhooks/${id}`, tenant.tokens.admin, { webhook: { enabled: false, events: ['consent.erased'] } });
    expect(changed.body.data).toMatchObject({ enabled: false, events: ['consent.erased'], url: `${receiver.url}/crud` });
    const rotated = await api('POST', `/api/v1/webhooks/${id}/rotate-secret`, tenant.tokens.admin);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(res.body.secret);

    // Members read, admins write.
    expect((await api('POST', '/api/v1/webhooks', tenant.tokens.member, { webhook: { url: `${receiver.url}/m`, events: ['scan.completed'] } })).status).toBe(403);
    // Validation: events from the list, a URL.
    const bad = await api('POST', '/api/v1/webhooks', tenant.tokens.admin, { webhook: { url: 'ftp://example.com/', events: ['consent.recorded'] } });
    expect(bad.status).toBe(422);
    expect((await api('POST', '/api/v1/webhooks', tenant.tokens.admin, { webhook: { url: `${receiver.url}/x`, events: ['nope'] } })).status).toBe(422);
    expect((await api('POST', '/api/v1/webhooks', tenant.tokens.admin, { webhook: { url: `${receiver.url}/x`, events: [] } })).status).toBe(422);

    // Bounded per account (WEBHOOKS_PER_ACCOUNT_MAX=4 here): the others are made by later tests, so count from what exists.
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await api('POST', '/api/v1/webhooks', tenant.tokens.admin, { webhook: { url: `${receiver.url}/n${i}`, events: ['scan.completed'] } })).body.data.id);
    const over = await api('POST', '/api/v1/webhooks', tenant.tokens.admin, { webhook: { url: `${receiver.url}/n9`, events: ['scan.completed'] } });
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ errors: [{ error: 'Account has reached its limit of 4 webhooks' }] });
    for (const made1 of [...made, id]) expect((await api('DELETE', `/api/v1/webhooks/${made1}`, tenant.tokens.admin)).status).toBe(200);
    expect((await api('GET', `/api/v1/webhooks/${id}`, tenant.tokens.admin)).status).toBe(404);
  });

  it('sends recorded consents in batches, signed, at most one delivery a second per endpoint', async () => {
    const [tenant, other] = tenants;
    const id = await endpoint(t.app, tenant, '/consents', ['consent.recorded']);
    // Another account's consents are never sent to this endpoint.
    await endpoint(t.app, other, '/other-consents', ['consent.erased']);
    const sessions: string[] = [];
    for (let round = 0; round < 3; round++) {
      const batch = Array.from({ length: 4 }, (_, i) => `s-${round}-${i}`);
      sessions.push(...batch);
      const answers = await Promise.all(batch.map((s) => api('POST', '/api/v1/consents', tenant.tokens.admin, consent(s))));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
      await api('POST', '/api/v1/consents', other.tokens.admin, consent(`other-${round}`));
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // Once per message: a receiver drops a repeated webhook-id (at-least-once: a slow answer is retried).
    const once = () => [...new Map(receiver.of('/consents').map((r) => [r.headers['webhook-id'], r])).values()];
    await expect.poll(() => once().flatMap((r) => r.verified?.data ?? []).length).toBe(12);
    const got = once();
    expect(got.every((r) => r.verified?.type === 'consent.recorded' && r.verified.account_id === tenant.account.id)).toBe(true);
    const sent = got.flatMap((r) => r.verified!.data as Array<{ session_id: string; accept_type: string; id: string }>);
    expect(sent.map((c) => c.session_id).sort()).toEqual([...sessions].sort());
    expect(sent.every((c) => c.accept_type === 'all')).toBe(true);
    // Fewer deliveries than consents: gathered; their times at least a second apart.
    expect(got.length).toBeLessThan(12);
    const rows = await t.services.db.selectFrom('webhook_deliveries').select('created_at').where('endpoint_id', '=', id).orderBy('created_at').execute();
    for (let i = 1; i < rows.length; i++) expect(rows[i].created_at.getTime() - rows[i - 1].created_at.getTime()).toBeGreaterThanOrEqual(1000);
    // Standard Webhooks headers; the id is the one the delivery log shows.
    const log = await deliveries(tenant, id);
    expect(log.every((d) => d.status === 'delivered' && d.attempts === 1 && d.response_code === 204 && d.event === 'consent.recorded')).toBe(true);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set(log.map((d) => d.message_id)));
    expect(got[0].headers['webhook-signature']).toMatch(/^v1,/);
    expect(receiver.of('/other-consents')).toEqual([]);
  });

  it('reads recorded consents when sending: an erasure since reaches the receiver, and the outbox keeps no identifier', async () => {
    const [tenant] = tenants;
    const id = await endpoint(t.app, tenant, '/erased', ['consent.recorded']);
    receiver.answers.set('/erased', [{ status: 500 }]);
    const recorded = await api('POST', '/api/v1/consents', tenant.tokens.admin, { consent: { session_id: 'sess-alice', user_id: 'alice', user_preferences: { accept_type: 'all' } } });
    expect(recorded.status).toBe(201);
    await expect.poll(() => receiver.of('/erased').length).toBeGreaterThan(0);
    expect(receiver.of('/erased')[0].verified!.data).toMatchObject([{ user_id: 'alice', session_id: 'sess-alice', erased_at: null }]);
    const stored = await t.services.db.selectFrom('webhook_deliveries').select('payload').where('endpoint_id', '=', id).execute();
    expect(stored.length).toBe(1);
    expect(stored[0].payload).not.toContain('alice');
    expect((await api('POST', '/api/v1/consents/erase', tenant.tokens.admin, { user_id: 'alice' })).status).toBe(200);
    // An attempt in flight during the erasure carries what it read before; once none is, every later one reads anew.
    await expect.poll(async () => (await t.services.db.selectFrom('webhook_deliveries').select('claimed_until').where('endpoint_id', '=', id).executeTakeFirstOrThrow()).claimed_until).toBeNull();
    receiver.answers.set('/erased', [{ status: 200 }]);
    await expect.poll(async () => (await deliveries(tenant, id))[0]?.status, { timeout: 15_000 }).toBe('delivered');
    const last = receiver.of('/erased').at(-1)!;
    expect(last.verified!.data).toMatchObject([{ id: recorded.body.data.id, user_id: null, session_id: '', erased_at: expect.any(String) }]);
    expect(last.body).not.toContain('alice');
    await api('DELETE', `/api/v1/webhooks/${id}`, tenant.tokens.admin);
  });

  it('retries after 500s and after timeouts until a 2xx, with the attempts in the log', async () => {
    const [tenant] = tenants;
    const id = await endpoint(t.app, tenant, '/flaky', ['consent.erased']);
    receiver.answers.set('/flaky', [{ status: 500 }, { status: 503 }, { status: 200, delayMs: 3000 }, { status: 200 }]);
    expect((await api('POST', '/api/v1/consents/erase', tenant.tokens.admin, { session_id: 'nobody' })).status).toBe(200);
    await expect.poll(async () => (await deliveries(tenant, id))[0]?.status).toBe('delivered');
    const [delivery] = await deliveries(tenant, id);
    expect(delivery).toMatchObject({ event: 'consent.erased', attempts: 4, response_code: 200, error: null, next_attempt_at: null });
    const tries = receiver.of('/flaky');
    expect(tries.length).toBe(4);
    // The same message every time, signed afresh, and never the erased identifier itself.
    expect(new Set(tries.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(tries.every((r) => r.verified?.type === 'consent.erased')).toBe(true);
    expect(tries[0].verified!.data).toMatchObject({ subject_type: 'session_id', consents: 0, subject_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(tries[0].body).not.toContain('nobody');
    await api('DELETE', `/api/v1/webhooks/${id}`, tenant.tokens.admin);
  });

  it('parks a delivery failing past its retry window, and sends it again on request', async () => {
    const [tenant, other] = tenants;
    const id = await endpoint(t.app, tenant, '/down', ['consent.erased']);
    receiver.answers.set('/down', [{ status: 500 }]);
    await api('POST', '/api/v1/consents/erase', tenant.tokens.admin, { session_id: 'gone' });
    await expect.poll(async () => (await deliveries(tenant, id))[0]?.status, { timeout: 15_000 }).toBe('parked');
    const [parked] = await deliveries(tenant, id);
    expect(parked.attempts).toBeGreaterThan(1);
    expect(parked).toMatchObject({ response_code: 500, error: 'answered 500', next_attempt_at: null });
    // A redirect is not followed: a failure like any other.
    receiver.answers.set('/down', [{ status: 302 }, { status: 200 }]);
    const before = receiver.of('/down').length;
    // Another tenant cannot send it again, not even knowing both ids.
    expect((await api('POST', `/api/v1/webhooks/${id}/deliveries/${parked.id}/retry`, other.tokens.admin)).status).toBe(404);
    const again = await api('POST', `/api/v1/webhooks/${id}/deliveries/${parked.id}/retry`, tenant.tokens.admin);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: parked.id, status: 'pending', attempts: 0 });
    await expect.poll(async () => (await deliveries(tenant, id))[0]?.status).toBe('delivered');
    expect((await deliveries(tenant, id))[0]).toMatchObject({ attempts: 2, response_code: 200 });
    expect(receiver.of('/down').length).toBe(before + 2);
    expect(receiver.of('/down').at(-2)!.verified).toBeDefined();
    await api('DELETE', `/api/v1/webhooks/${id}`, tenant.tokens.admin);
  });

  it('tells notice.changed once per new notice snapshot', async () => {
    const [, other] = tenants;
    await endpoint(t.app, other, '/notices', ['notice.changed']);
    for (let i = 0; i < 2; i++) expect((await call(t.app, 'GET', `/widget/${other.account.id}/config.json`)).status).toBe(200);
    await expect.poll(() => receiver.of('/notices').length).toBe(1);
    const [told] = receiver.of('/notices');
    expect(told.verified).toMatchObject({ type: 'notice.changed', account_id: other.account.id, data: { notice_hash: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    const stored = await t.services.db.selectFrom('notice_snapshots').select('hash').where('account_id', '=', other.account.id).execute();
    expect(stored.map((row) => row.hash)).toEqual([told.verified!.data.notice_hash]);
  });

  it('pages the delivery log with links naming the webhook, and filters it', async () => {
    const [tenant] = tenants;
    const id = await endpoint(t.app, tenant, '/paged', ['consent.erased']);
    for (const session of ['p1', 'p2', 'p3']) await api('POST', '/api/v1/consents/erase', tenant.tokens.admin, { session_id: session });
    await expect.poll(async () => (await deliveries(tenant, id)).filter((d) => d.status === 'delivered').length).toBe(3);
    const page = await api('GET', `/api/v1/webhooks/${id}/deliveries?limit=1&page=2&event=consent.erased`, tenant.tokens.member);
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({
      count: 3, page: 2, prev: 1, next: 3,
      prev_url: `/api/v1/webhooks/${id}/deliveries?page=1&limit=1&event=consent.erased`,
      next_url: `/api/v1/webhooks/${id}/deliveries?page=3&limit=1&event=consent.erased`,
    });
    expect((await api('GET', `/api/v1/webhooks/${id}/deliveries?status=parked`, tenant.tokens.member)).body.data).toEqual([]);
    expect((await api('GET', `/api/v1/webhooks/${id}/deliveries?event=scan.completed`, tenant.tokens.member)).body.pagination.count).toBe(0);
    const bad = await api('GET', `/api/v1/webhooks/${id}/deliveries?limit=101`, tenant.tokens.member);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: [{ code: 400, message: 'limit must be between 1 and 100' }] });
    await api('DELETE', `/api/v1/webhooks/${id}`, tenant.tokens.admin);
  });
});

describe(`webhooks failing for too long (${ENGINE})`, () => {
  const { t, tenants, inbox } = fileApp({ tenants: ['Failing'] as const, inbox: true, env: { ...FAST, WEBHOOK_RETRY_WINDOW_S: '600', WEBHOOK_DISABLE_AFTER_S: '1' } });

  it('disables the endpoint, parks what waits and emails the admins', async () => {
    const [tenant] = tenants;
    const id = await endpoint(t.app, tenant, '/dead', ['consent.erased']);
    receiver.answers.set('/dead', [{ status: 500 }]);
    await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { session_id: 'a' } });
    await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { session_id: 'b' } });
    await expect.poll(async () => (await call(t.app, 'GET', `/api/v1/webhooks/${id}`, { token: tenant.tokens.admin })).body.data.enabled, { timeout: 15_000 }).toBe(false);
    const shown = (await call(t.app, 'GET', `/api/v1/webhooks/${id}`, { token: tenant.tokens.admin })).body.data;
    expect(shown.disabled_reason).toMatch(/^Every delivery failed from /);
    expect(shown.failing_since).not.toBeNull();
    const log = (await call(t.app, 'GET', `/api/v1/webhooks/${id}/deliveries`, { token: tenant.tokens.admin })).body.data;
    expect(log.map((d: { status: string }) => d.status)).toEqual(['parked', 'parked']);
    await expect.poll(() => inbox.mails.filter((m) => m.to.includes(tenant.admin.email)).length).toBe(1);
    const mail = inbox.mails.find((m) => m.to.includes(tenant.admin.email))!;
    expect(mail.raw).toContain('A webhook of Failing site was disabled after failing');
    expect(mail.text).toContain(`${receiver.url}/dead`);
    // Not the member: only admins are told.
    expect(inbox.mails.some((m) => m.to.includes(tenant.member.email))).toBe(false);
    // Nothing more is sent to it.
    const count = receiver.of('/dead').length;
    await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { session_id: 'c' } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.of('/dead').length).toBe(count);
    // Enabled again: failing no more, and new events go out.
    receiver.answers.set('/dead', [{ status: 200 }]);
    const enabled = await call(t.app, 'PATCH', `/api/v1/webhooks/${id}`, { token: tenant.tokens.admin, body: { webhook: { enabled: true } } });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { session_id: 'd' } });
    await expect.poll(() => receiver.of('/dead').length).toBe(count + 1);
  });
});

describe(`webhooks and private addresses (${ENGINE})`, () => {
  const { t, tenants } = fileApp({ tenants: ['Guarded'] as const, env: { WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_RETRY_BASE_MS: '50', RATE_LIMIT_MAX: '100000' } });

  it('refuses loopback, private and plain http URLs, at creation and at send time', async () => {
    const [tenant] = tenants;
    const create = (url: string) => call(t.app, 'POST', '/api/v1/webhooks', { token: tenant.tokens.admin, body: { webhook: { url, events: ['consent.erased'] } } });
    expect((await create(`${receiver.url}/x`)).body).toEqual({ errors: [{ error: 'Url must start with https://' }] });
    for (const url of ['https://127.0.0.1/hook', 'https://10.1.2.3/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest', 'https://localhost/hook']) {
      const res = await create(url);
      expect(res.status, url).toBe(422);
      expect(res.body.errors[0].error, url).toMatch(/^Url is not allowed: .* private or reserved address .*WEBHOOK_ALLOW_PRIVATE_NETWORKS=true$/);
    }
    // A host that later resolves to a private address (here: stored as such) is refused when sending, and nothing is sent.
    const row = await t.services.db.insertInto('webhook_endpoints').values({
      id: crypto.randomUUID(), account_id: tenant.account.id, url: `https://127.0.0.1:${new URL(receiver.url).port}/private`, events: ['consent.erased'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }).returningAll().executeTakeFirstOrThrow();
    await t.services.webhooks.changed();
    await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.admin, body: { session_id: 'x' } });
    await expect.poll(async () => (await call(t.app, 'GET', `/api/v1/webhooks/${row.id}/deliveries`, { token: tenant.tokens.admin })).body.data[0]?.attempts ?? 0).toBeGreaterThan(0);
    const [delivery] = (await call(t.app, 'GET', `/api/v1/webhooks/${row.id}/deliveries`, { token: tenant.tokens.admin })).body.data;
    expect(delivery.error).toBe('127.0.0.1 resolves to a private or reserved address (127.0.0.1)');
    expect(delivery.response_code).toBeNull();
    expect(receiver.of('/private')).toEqual([]);
  });
});
