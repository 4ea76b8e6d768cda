/**
 * Notice snapshots: what the banner showed is stored once per content before it is served, a consent
 * names it inside the chain, and a later edit leaves that consent's snapshot as it was and verifiable.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/lib/canonical-json.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import type { Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [shop, other] } = fileApp({ tenants: ['Noticed', 'Elsewhere'] as const, env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' } });

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

async function servedHash(tenant: Tenant): Promise<string> {
  const res = await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`);
  expect(res.status).toBe(200);
  expect(res.body.data.notice_hash).toMatch(/^[0-9a-f]{64}$/);
  return res.body.data.notice_hash;
}

async function consentWith(tenant: Tenant, notice: string | undefined) {
  return call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
    body: { consent: { session_id: `s-${Math.random()}`, user_preferences: { accept_type: 'all' }, ...(notice && { notice_hash: notice }) } },
  });
}

async function category(tenant: Tenant, name: string): Promise<string> {
  const res = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name, published: true, description: 'Before the edit' } } });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

describe('notice snapshots', () => {
  it('keeps the snapshot a consent names through later edits, and the chain verifies', async () => {
    const categoryId = await category(shop, 'Statistics');
    const before = await servedHash(shop);
    // The script carries the same configuration and hash as config.json.
    const built = await t.services.bannerScripts.get(shop.account.id);
    expect(built!.config.notice_hash).toBe(before);

    const recorded = await consentWith(shop, before);
    expect(recorded.status).toBe(201);
    const consentId = recorded.body.data.id;

    const edit = await call(t.app, 'PUT', `/api/v1/categories/${categoryId}`, { token: shop.tokens.account, body: { category: { description: 'After the edit' } } });
    expect(edit.status).toBe(200);
    const after = await servedHash(shop);
    expect(after).not.toBe(before);

    const consent = await call(t.app, 'GET', `/api/v1/consents/${consentId}`, { token: shop.tokens.member });
    expect(consent.body.data.notice_hash).toBe(before);
    const snapshot = await call(t.app, 'GET', `/api/v1/notices/${before}`, { token: shop.tokens.member });
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.data.hash).toBe(before);
    // The stored content hashes to the consent's notice_hash, and it says what was shown then.
    expect(sha256(canonicalJson(snapshot.body.data.content))).toBe(before);
    const shown = snapshot.body.data.content.categories.find((c: { id: string }) => c.id === categoryId);
    expect(shown.description).toBe('Before the edit');
    const now = await call(t.app, 'GET', `/api/v1/notices/${after}`, { token: shop.tokens.member });
    expect(now.body.data.content.categories.find((c: { id: string }) => c.id === categoryId).description).toBe('After the edit');

    const verified = await call(t.app, 'GET', '/api/v1/consents/verify', { token: shop.tokens.member });
    expect(verified.body).toMatchObject({ valid: true, first_bad_id: null });

    // The receipt and the export carry it.
    const receipt = await call(t.app, 'GET', `/widget/${shop.account.id}/consents/${consentId}`, { query: { session_id: consent.body.data.session_id } });
    expect(receipt.body.data.notice_hash).toBe(before);
    const ndjson = await t.app.inject({ method: 'GET', url: '/api/v1/consents/export', headers: { authorization: `Bearer ${shop.tokens.account}` } });
    const line = ndjson.body.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((r) => r.id === consentId);
    expect(line.notice_hash).toBe(before);
    const csv = await t.app.inject({ method: 'GET', url: '/api/v1/consents/export?format=csv', headers: { authorization: `Bearer ${shop.tokens.account}` } });
    const [header, ...rows] = csv.body.trim().split('\n');
    expect(header.split(',').at(-1)).toBe('notice_hash');
    expect(rows.find((r) => r.startsWith(consentId))!.split(',').at(-1)).toBe(before);
  });

  it('breaks the chain when a stored notice_hash is changed', async () => {
    const hash = await servedHash(shop);
    const res = await consentWith(shop, hash);
    const foreign = await servedHash(other);
    await sql`update consents set notice_hash = ${foreign} where id = ${res.body.data.id}`.execute(t.services.db);
    const verified = await call(t.app, 'GET', '/api/v1/consents/verify', { token: shop.tokens.member });
    expect(verified.body).toMatchObject({ valid: false, first_bad_id: res.body.data.id });
    await sql`update consents set notice_hash = ${hash} where id = ${res.body.data.id}`.execute(t.services.db);
    expect((await call(t.app, 'GET', '/api/v1/consents/verify', { token: shop.tokens.member })).body.valid).toBe(true);
  });

  it('stores one snapshot per distinct content, lists them newest first', async () => {
    const first = await servedHash(other);
    t.services.bannerScripts.forget(other.account.id);
    expect(await servedHash(other)).toBe(first);
    await category(other, 'Marketing');
    const second = await servedHash(other);
    const list = await call(t.app, 'GET', '/api/v1/notices', { token: other.tokens.member });
    expect(list.status).toBe(200);
    expect(list.body.pagination.count).toBe(2);
    expect(list.body.data.map((n: { hash: string }) => n.hash)).toEqual([second, first]);
    expect(list.body.data[0].bytes).toBeGreaterThan(100);
    const paged = await call(t.app, 'GET', '/api/v1/notices', { token: other.tokens.member, query: { limit: '1', page: '2' } });
    expect(paged.body.data.map((n: { hash: string }) => n.hash)).toEqual([first]);
  });

  it("refuses a hash the account never served, another account's included, and hides other accounts' snapshots", async () => {
    const foreign = await servedHash(other);
    const refused = await consentWith(shop, foreign);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ errors: [{ error: 'Notice hash must exist' }] });
    expect((await consentWith(shop, 'f'.repeat(64))).status).toBe(422);
    expect((await consentWith(shop, 'not-a-hash')).status).toBe(422);
    const hidden = await call(t.app, 'GET', `/api/v1/notices/${foreign}`, { token: shop.tokens.account });
    expect(hidden.status).toBe(404);
    // Without one (a backend's consent), the consent names none.
    const api = await call(t.app, 'POST', '/api/v1/consents', { token: shop.tokens.admin, body: { consent: { session_id: 'backend', user_preferences: { accept_type: 'all' } } } });
    expect(api.status).toBe(201);
    expect(api.body.data.notice_hash).toBeNull();
  });
});
