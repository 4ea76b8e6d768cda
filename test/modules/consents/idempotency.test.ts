/**
 * Idempotency keys on consents: the widget's `idempotency_key` body field and the API's
 * `Idempotency-Key` header. A key sent again for the same account is answered with the first
 * consent and records nothing, whichever instance it reaches and however close together.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { ConsentWriter } from '../../../src/modules/consents/consent-writer.ts';
import type { NewConsent } from '../../../src/modules/consents/consents.repository.ts';
import { pruneConsentKeys } from '../../../src/modules/consents/idempotency-keys.ts';
import { call, ENGINE, startApp, type TestApp } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [one, two] } = fileApp({ env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' }, tenants: ['KeyOne', 'KeyTwo'] });

const newKey = () => randomBytes(16).toString('base64url');
const widgetConsent = (app: TestApp, accountId: string, session: string, key?: string) =>
  call(app.app, 'POST', `/widget/${accountId}/consents`, {
    body: { consent: { session_id: session, user_preferences: { accept_type: 'all' } }, ...(key && { idempotency_key: key }) },
  });
const sessionsStored = async (accountId: string, session: string) =>
  (await t.services.db.selectFrom('consents').select('id').where('account_id', '=', accountId).where('session_id', '=', session).execute()).map((r) => r.id);

let peer: TestApp | undefined;
afterAll(async () => peer?.close());

describe(`idempotency keys (${ENGINE})`, () => {
  it('answers a key sent again with the first consent and records nothing', async () => {
    const key = newKey();
    const first = await widgetConsent(t, one.account.id, 'key-again', key);
    const again = await widgetConsent(t, one.account.id, 'key-again', key);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.data).toEqual(first.body.data);
    expect(await sessionsStored(one.account.id, 'key-again')).toEqual([first.body.data.id]);
    // Without a key, the same consent sent twice is two consents.
    await widgetConsent(t, one.account.id, 'no-key');
    await widgetConsent(t, one.account.id, 'no-key');
    expect(await sessionsStored(one.account.id, 'no-key')).toHaveLength(2);
  });

  it('keeps the keys of different accounts apart', async () => {
    const key = newKey();
    const a = await widgetConsent(t, one.account.id, 'key-shared', key);
    const b = await widgetConsent(t, two.account.id, 'key-shared', key);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.id).not.toBe(b.body.data.id);
    expect(await sessionsStored(one.account.id, 'key-shared')).toEqual([a.body.data.id]);
    expect(await sessionsStored(two.account.id, 'key-shared')).toEqual([b.body.data.id]);
  });

  it('records one consent for a key sent twice at once, on one instance and (PostgreSQL) on two', async () => {
    if (ENGINE === 'postgres') peer ??= await startApp({ shareWith: t, env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' } });
    const instances = [t, peer ?? t];
    for (let round = 0; round < 10; round++) {
      const key = newKey();
      const session = `key-pair-${round}`;
      // Other consents in the same batches, so that a refused key must not take its batch-mates down.
      const others = Array.from({ length: 6 }, (_, i) => widgetConsent(instances[i % 2], one.account.id, `${session}-other-${i}`, newKey()));
      const [a, b] = await Promise.all([widgetConsent(instances[0], one.account.id, session, key), widgetConsent(instances[1], one.account.id, session, key)]);
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(b.body.data).toEqual(a.body.data);
      expect(await sessionsStored(one.account.id, session)).toEqual([a.body.data.id]);
      for (const other of await Promise.all(others)) expect(other.status).toBe(201);
    }
    const rows = await t.services.db.selectFrom('consents').select('session_id').where('account_id', '=', one.account.id).where('session_id', 'like', 'key-pair-%-other-%').execute();
    expect(rows).toHaveLength(60);
  });

  it('answers the keys of a batch that were stored before and stores the rest of the batch', async () => {
    const consent = (session: string, key: string): NewConsent => ({
      id: newId(), account_id: one.account.id, session_id: session, user_id: null,
      user_preferences: { accept_type: 'all', accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} },
      url: null, user_agent: null, ip_address: null, gpc: false, created_at: new Date(), idempotency_key: key,
    });
    const key = newKey();
    const first = await widgetConsent(t, one.account.id, 'batch-known', key);
    // A writer of its own: what this instance's writer holds in memory plays no part.
    const writer = new ConsentWriter(t.services.connection, { maxBatch: 50, maxQueue: 100, concurrency: 1 });
    const fresh = Array.from({ length: 5 }, (_, i) => consent(`batch-fresh-${i}`, newKey()));
    const again = consent('batch-known', key);
    const answers = await Promise.all([...fresh, again].map((c) => writer.write(c)));
    await writer.close();
    expect(answers.slice(0, 5)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(answers[5]).toEqual({ id: first.body.data.id, created_at: new Date(first.body.data.created_at) });
    expect(await sessionsStored(one.account.id, 'batch-known')).toEqual([first.body.data.id]);
    for (const c of fresh) expect(await sessionsStored(one.account.id, c.session_id)).toEqual([c.id]);
  });

  it('honours Idempotency-Key on POST /api/v1/consents and refuses a malformed one', async () => {
    const key = newKey();
    const send = (headers: Record<string, string>) => call(t.app, 'POST', '/api/v1/consents', {
      token: one.tokens.account, headers, body: { consent: { session_id: 'api-key', user_preferences: { accept_type: 'necessary' } } },
    });
    const first = await send({ 'idempotency-key': key });
    const again = await send({ 'idempotency-key': key });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.data.created_at).toBe(first.body.data.created_at);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await sessionsStored(one.account.id, 'api-key')).toEqual([first.body.data.id]);
    // The widget's key space is the account's: the same key there answers the same consent.
    const widget = await widgetConsent(t, one.account.id, 'api-key', key);
    expect(widget.body.data.id).toBe(first.body.data.id);
    for (const bad of ['short', 'x'.repeat(129), 'has spaces in it here', 'ünïcødé-ünïcødé-ünïcødé']) {
      const refused = await send({ 'idempotency-key': bad });
      expect(refused.status, bad).toBe(422);
      const widgetRefused = await widgetConsent(t, one.account.id, 'bad-key', bad);
      expect(widgetRefused.status, bad).toBe(422);
    }
    expect(await sessionsStored(one.account.id, 'bad-key')).toEqual([]);
    // The widget takes the header too (a client other than the banner; the balancer retries on it).
    const headerKey = newKey();
    const viaHeader = () => call(t.app, 'POST', `/widget/${one.account.id}/consents`, {
      headers: { 'idempotency-key': headerKey }, body: { consent: { session_id: 'widget-header', user_preferences: { accept_type: 'all' } } },
    });
    const [h1, h2] = [await viaHeader(), await viaHeader()];
    expect([h1.status, h2.status]).toEqual([201, 201]);
    expect(h2.body.data).toEqual(h1.body.data);
    expect(await sessionsStored(one.account.id, 'widget-header')).toEqual([h1.body.data.id]);
  });

  it('forgets keys after 24 hours: pruned, the key records a new consent', async () => {
    const key = newKey();
    const first = await widgetConsent(t, one.account.id, 'key-old', key);
    await sql`update consent_idempotency_keys set created_at = now() - interval '25 hours' where account_id = ${one.account.id} and key = ${key}`.execute(t.services.db);
    const recent = newKey();
    await widgetConsent(t, one.account.id, 'key-recent', recent);
    expect(await pruneConsentKeys(t.services.db, 10_000)).toBeGreaterThanOrEqual(1);
    const left = await t.services.db.selectFrom('consent_idempotency_keys').select('key').where('account_id', '=', one.account.id).where('key', 'in', [key, recent]).execute();
    expect(left.map((r) => r.key)).toEqual([recent]);
    const later = await widgetConsent(t, one.account.id, 'key-old', key);
    expect(later.body.data.id).not.toBe(first.body.data.id);
    expect(await sessionsStored(one.account.id, 'key-old')).toHaveLength(2);
  });
});
