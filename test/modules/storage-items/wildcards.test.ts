/**
 * Wildcard storage items (`_ga_*`): which concrete items carry a wildcard's id in
 * `wildcard_cookie_id`, kept right when either side is created, renamed, retyped or deleted.
 */
import { expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [tenant, stranger] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Wild', 'Stranger'] });

interface Item { id: string; name: string; is_wildcard_cookie: boolean; wildcard_cookie_id: string | null; updated_at: string }

async function create(token: string, storage_item: Record<string, unknown>): Promise<Item> {
  const res = await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** The link of an item as stored now. */
async function linkOf(id: string) {
  const row = await t.services.db.selectFrom('storage_items').select('wildcard_cookie_id').where('id', '=', id).executeTakeFirstOrThrow();
  return row.wildcard_cookie_id;
}

const stored = (id: string) => t.services.db.selectFrom('storage_items').select('id').where('id', '=', id).executeTakeFirst();

const make = (fields: Record<string, unknown>) => create(tenant.tokens.account, fields);
async function change(id: string, storage_item: Record<string, unknown>): Promise<Item> {
  const res = await call(t.app, 'PUT', `/api/v1/storage-items/${id}`, { token: tenant.tokens.account, body: { storage_item } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}
async function remove(id: string) {
  const res = await call(t.app, 'DELETE', `/api/v1/storage-items/${id}`, { token: tenant.tokens.account });
  expect(res).toMatchObject({ status: 200, body: { message: 'Storage item was deleted successfully' } });
}

it('links a concrete item created after its wildcard, of the same storage type and account only', async () => {
  const wildcard = await make({ name: '_ga_*' });
  expect(wildcard).toMatchObject({ is_wildcard_cookie: true, wildcard_cookie_id: null });
  expect((await make({ name: '_ga_ABC123' })).wildcard_cookie_id).toBe(wildcard.id);
  expect((await make({ name: '_ga_' })).wildcard_cookie_id).toBe(wildcard.id);
  expect((await make({ name: '_ga' })).wildcard_cookie_id).toBeNull();
  expect((await make({ name: '_GA_X' })).wildcard_cookie_id).toBeNull();
  expect((await make({ name: '_ga_LS', storage_type: 'local_storage' })).wildcard_cookie_id).toBeNull();
  expect((await create(stranger.tokens.account, { name: '_ga_ABC123' })).wildcard_cookie_id).toBeNull();
  await remove(wildcard.id);
});

it('links the concrete items that already exist when their wildcard is created, and unlinks them when it is deleted', async () => {
  const first = await make({ name: '_hj_1' });
  const second = await make({ name: '_hj_2', storage_type: 'session_storage' });
  const other = await make({ name: '_hjx' });
  const foreign = await create(stranger.tokens.account, { name: '_hj_1' });
  const wildcard = await make({ name: '_hj_*' });
  expect(await linkOf(first.id)).toBe(wildcard.id);
  expect(await linkOf(second.id)).toBeNull();
  expect(await linkOf(other.id)).toBeNull();
  expect(await linkOf(foreign.id)).toBeNull();
  const shown = await call(t.app, 'GET', `/api/v1/storage-items/${first.id}`, { token: tenant.tokens.account });
  expect(shown.body.data).toMatchObject({ wildcard_cookie_id: wildcard.id, updated_at: first.updated_at });

  await remove(wildcard.id);
  expect(await linkOf(first.id)).toBeNull();
  expect(await stored(first.id)).toBeDefined();
});

it('prefers the most specific wildcard, and falls back to a broader one when it goes', async () => {
  const broad = await make({ name: '_pk*' });
  const narrow = await make({ name: '_pk_id.*' });
  const id = await make({ name: '_pk_id.1.abcd' });
  const ses = await make({ name: '_pk_ses.1' });
  expect(id.wildcard_cookie_id).toBe(narrow.id);
  expect(ses.wildcard_cookie_id).toBe(broad.id);
  await remove(narrow.id);
  expect(await linkOf(id.id)).toBe(broad.id);
  await remove(broad.id);
  expect(await linkOf(id.id)).toBeNull();
});

it('follows a rename of the concrete item, either way', async () => {
  const wildcard = await make({ name: 'cart_*' });
  const item = await make({ name: 'basket' });
  expect(item.wildcard_cookie_id).toBeNull();
  expect((await change(item.id, { name: 'cart_42' })).wildcard_cookie_id).toBe(wildcard.id);
  expect((await change(item.id, { description: 'no rename' })).wildcard_cookie_id).toBe(wildcard.id);
  expect((await change(item.id, { name: 'basket' })).wildcard_cookie_id).toBeNull();
  expect((await change(item.id, { name: 'cart_7', storage_type: 'local_storage' })).wildcard_cookie_id).toBeNull();
  expect((await change(item.id, { storage_type: 'cookie' })).wildcard_cookie_id).toBe(wildcard.id);
});

it('follows a rename or a new storage type of the wildcard', async () => {
  const wildcard = await make({ name: 'ab_*' });
  const old = await make({ name: 'ab_test' });
  const next = await make({ name: 'ab-test' });
  const localItem = await make({ name: 'ab-local', storage_type: 'local_storage' });
  expect(old.wildcard_cookie_id).toBe(wildcard.id);
  await change(wildcard.id, { name: 'ab-*' });
  expect([await linkOf(old.id), await linkOf(next.id), await linkOf(localItem.id)]).toEqual([null, wildcard.id, null]);
  await change(wildcard.id, { storage_type: 'local_storage' });
  expect([await linkOf(old.id), await linkOf(next.id), await linkOf(localItem.id)]).toEqual([null, null, wildcard.id]);
});

it('turns a wildcard into a concrete item and back', async () => {
  const broad = await make({ name: 'utm*' });
  const wildcard = await make({ name: 'utm_*' });
  const member = await make({ name: 'utm_source' });
  expect(member.wildcard_cookie_id).toBe(wildcard.id);

  const concrete = await change(wildcard.id, { name: 'utm_campaign' });
  expect(concrete).toMatchObject({ is_wildcard_cookie: false, wildcard_cookie_id: broad.id });
  expect(await linkOf(member.id)).toBe(broad.id);

  const again = await change(wildcard.id, { name: 'utm_*' });
  expect(again).toMatchObject({ is_wildcard_cookie: true, wildcard_cookie_id: null });
  expect(await linkOf(member.id)).toBe(wildcard.id);

  const turned = await change(member.id, { name: 'utm_source*' });
  expect(turned).toMatchObject({ is_wildcard_cookie: true, wildcard_cookie_id: null });
});

it("takes LIKE's own characters literally: _ and % match only themselves", async () => {
  const wildcard = await make({ name: 'a_b%*' });
  expect((await make({ name: 'a_b%1' })).wildcard_cookie_id).toBe(wildcard.id);
  expect((await make({ name: 'axb%1' })).wildcard_cookie_id).toBeNull();
  expect((await make({ name: 'a_bz1' })).wildcard_cookie_id).toBeNull();
  const middle = await make({ name: 'x*y' });
  expect((await make({ name: 'x--y' })).wildcard_cookie_id).toBe(middle.id);
  expect((await make({ name: 'x--yz' })).wildcard_cookie_id).toBeNull();
});

it('leaves the wildcard alone when one of its concrete items is deleted', async () => {
  const wildcard = await make({ name: 'del_*' });
  const one = await make({ name: 'del_1' });
  const two = await make({ name: 'del_2' });
  await remove(one.id);
  expect(await linkOf(two.id)).toBe(wildcard.id);
  expect(await stored(wildcard.id)).toBeDefined();
});

it('never misses a link when a wildcard and its matches are created at the same time', async () => {
  const names = Array.from({ length: 12 }, (_, i) => `race_${i}`);
  const [wildcard, ...items] = await Promise.all([make({ name: 'race_*' }), ...names.map((name) => make({ name }))]);
  for (const item of items) expect([item.name, await linkOf(item.id)]).toEqual([item.name, wildcard.id]);
});
