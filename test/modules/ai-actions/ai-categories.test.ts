/**
 * The AI and the account's categories, through the API: it matches existing categories by
 * meaning, never adds one to the live banner behind the admin's back, and "classify now".
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { AI_CATEGORISE_OFF } from '../../../src/modules/storage-items/storage-items.service.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createItem, settledItem } from '../../helpers/storage-items.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t } = fileApp({ env: { RATE_LIMIT_MAX: '100000' } });

const api = (method: string, url: string, token: string, body?: unknown, query?: Record<string, string>) =>
  call(t.app, method, url, { token, body, query });

async function setAi(tenant: Tenant, ai_features: Record<string, unknown>) {
  const res = await api('PATCH', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.partner, { account: { ai_features } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function accountWith(ai_features: Record<string, unknown>): Promise<Tenant> {
  const tenant = await createTenant(t.services, `Ai cat ${newId().slice(-6)}`);
  await setAi(tenant, ai_features);
  return tenant;
}

async function category(tenant: Tenant, fields: Record<string, unknown>) {
  const res = await api('POST', '/api/v1/categories', tenant.tokens.account, { category: fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

const create = (tenant: Tenant, item: Record<string, unknown>) => createItem(t.app, tenant, item);

const settled = (tenant: Tenant, id: string) => settledItem(t.app, tenant, id);

async function categories(tenant: Tenant) {
  const res = await api('GET', '/api/v1/categories', tenant.tokens.account, undefined, { limit: '100' });
  return res.body.data as Array<Record<string, any>>;
}

async function banner(tenant: Tenant) {
  const res = await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`, { headers: { origin: `https://${tenant.account.domain}` } });
  expect(res.status).toBe(200);
  return res.body.data.categories as Array<Record<string, any>>;
}

const ON = { auto_categorise: true, autofill: true };

describe('matching an account\'s categories by meaning', () => {
  it('puts a marketing cookie in "Marketing & Ads" and adds no second marketing category', async () => {
    const tenant = await accountWith(ON);
    const ads = await category(tenant, { name: 'Marketing & Ads' });
    const item = await settled(tenant, (await create(tenant, { name: '__hstc' })).id);
    expect(item.category_id).toBe(ads.id);
    expect((await categories(tenant)).map((c) => c.name)).toEqual(['Marketing & Ads']);
  });

  it('reads other languages and descriptions, and never files an optional item in a required category', async () => {
    const tenant = await accountWith(ON);
    const required = await category(tenant, { name: 'Technisch notwendig & Statistik', required: true });
    const statistik = await category(tenant, { name: 'Statistiken', description: 'Anonyme Messung der Nutzung' });
    const necessary = await category(tenant, { name: 'Unbedingt erforderlich', required: true });
    expect(required.published).toBe(true);
    const analytics = await settled(tenant, (await create(tenant, { name: '_gid' })).id);
    expect(analytics.category_id).toBe(statistik.id);
    const bot = await settled(tenant, (await create(tenant, { name: '__cf_bm' })).id);
    expect([required.id, necessary.id]).toContain(bot.category_id);
    expect(await categories(tenant)).toHaveLength(3);
  });
});

describe('a category the AI has to create', () => {
  it('is unpublished, out of the banner until an admin publishes it', async () => {
    const tenant = await accountWith(ON);
    const necessary = await category(tenant, { name: 'Necessary', required: true });
    const item = await settled(tenant, (await create(tenant, { name: '__hstc' })).id);
    const created = (await categories(tenant)).find((c) => c.id === item.category_id)!;
    expect(created).toMatchObject({ slug: 'marketing', name: 'Marketing', published: false, required: false });
    // Finalised by a person, the item still waits with its category.
    await api('PUT', `/api/v1/storage-items/${item.id}`, tenant.tokens.account, { storage_item: { status: 'finalised' } });
    expect((await banner(tenant)).map((c) => c.id)).toEqual([necessary.id]);

    const published = await api('PUT', `/api/v1/categories/${created.id}`, tenant.tokens.account, { category: { published: true } });
    expect(published.body.data.published).toBe(true);
    const shown = await banner(tenant);
    expect(shown.map((c) => c.id)).toEqual([necessary.id, created.id]);
    expect(shown[1].storage_items.map((i: { name: string }) => i.name)).toEqual(['__hstc']);
  });

  it('is published at once when the account lets the AI approve, raising the revision; undone, it raises it again', async () => {
    const tenant = await accountWith({ ...ON, auto_approve: true });
    const revision = async () => (await api('GET', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.account)).body.revision;
    expect(await revision()).toBe(1);
    const item = await settled(tenant, (await create(tenant, { name: '_gid' })).id);
    expect(item).toMatchObject({ status: 'finalised', approved_by_type: 'AI' });
    expect((await categories(tenant)).find((c) => c.id === item.category_id)).toMatchObject({ slug: 'analytics', published: true });
    expect((await banner(tenant)).map((c) => c.slug)).toEqual(['analytics']);
    expect(await revision()).toBe(2);

    // Undone: the item leaves the category, then the category's creation is reverted.
    const actions = (await api('GET', '/api/v1/ai-actions', tenant.tokens.account, undefined, { limit: '100' })).body.data as Array<Record<string, any>>;
    const onItem = actions.filter((a) => a.actionable_id === item.id && a.action_type === 'auto_categorise');
    const made = actions.find((a) => a.actionable_type === 'Category')!;
    for (const action of onItem) expect((await api('POST', `/api/v1/ai-actions/${action.id}/revert`, tenant.tokens.account)).status).toBe(200);
    expect((await api('POST', `/api/v1/ai-actions/${made.id}/revert`, tenant.tokens.account)).status).toBe(200);
    expect(await banner(tenant)).toEqual([]);
    expect(await revision()).toBe(3);
  });

  it('takes another slug when the standard one belongs to a category of another meaning', async () => {
    const tenant = await accountWith(ON);
    // A required category slugged "analytics" must never receive an optional item.
    const trap = await category(tenant, { name: 'Site operation', slug: 'analytics', required: true });
    const item = await settled(tenant, (await create(tenant, { name: '_gid' })).id);
    expect(item.category_id).not.toBe(trap.id);
    expect((await categories(tenant)).find((c) => c.id === item.category_id)).toMatchObject({ slug: 'analytics-ai', published: false });
  });
});

describe('POST /api/v1/storage-items/classify', () => {
  it('refuses while auto_categorise is off, then hands every uncategorised draft of the account to the AI', async () => {
    const tenant = await accountWith({});
    const other = await accountWith({});
    const names = ['_gid', '__hstc', 'cf_clearance'];
    const items = [];
    for (const name of names) items.push(await create(tenant, { name }));
    const person = await category(tenant, { name: 'Chosen by a person' });
    const kept = await create(tenant, { name: '_ga', category_id: person.id });
    const reviewed = await create(tenant, { name: 'hubspotutk', status: 'in_review' });
    const foreign = await create(other, { name: '_gid' });
    expect(items.map((i) => i.status)).toEqual(['draft', 'draft', 'draft']);

    const refused = await api('POST', '/api/v1/storage-items/classify', tenant.tokens.account);
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain(AI_CATEGORISE_OFF);

    await setAi(tenant, { auto_categorise: true });
    const member = await api('POST', '/api/v1/storage-items/classify', tenant.tokens.member);
    expect(member.status).toBe(403);
    const res = await api('POST', '/api/v1/storage-items/classify', tenant.tokens.account);
    expect(res).toMatchObject({ status: 202, body: { data: { processing: 3 } } });
    const done = [];
    for (const item of items) done.push(await settled(tenant, item.id));
    const slugs = new Map((await categories(tenant)).map((c) => [c.id, c.slug]));
    expect(done.map((i) => [i.status, slugs.get(i.category_id)])).toEqual([['in_review', 'analytics'], ['in_review', 'marketing'], ['in_review', 'necessary']]);
    expect(await settled(tenant, kept.id)).toMatchObject({ category_id: person.id, status: 'draft' });
    expect(await settled(tenant, reviewed.id)).toMatchObject({ category_id: null, status: 'in_review' });
    expect((await api('GET', `/api/v1/storage-items/${foreign.id}`, other.tokens.account)).body.data).toMatchObject({ status: 'draft', category_id: null });

    // Nothing left to do: nothing is taken again.
    expect((await api('POST', '/api/v1/storage-items/classify', tenant.tokens.account)).body).toEqual({ data: { processing: 0 } });
  });

  it('hands only the items sent to the AI, of those that are uncategorised drafts of the account', async () => {
    const tenant = await accountWith({ auto_categorise: true });
    const other = await accountWith({ auto_categorise: true });
    // Created while the AI was off: they stay uncategorised drafts until classified.
    await setAi(tenant, { auto_categorise: false });
    const [chosen, alsoChosen, left] = [await create(tenant, { name: '_gid' }), await create(tenant, { name: '__hstc' }), await create(tenant, { name: '_fbp' })];
    const reviewed = await create(tenant, { name: 'hubspotutk', status: 'in_review' });
    await setAi(tenant, { auto_categorise: true });
    await setAi(other, { auto_categorise: false });
    const foreign = await create(other, { name: '_gid' });
    await setAi(other, { auto_categorise: true });

    const classify = (body: unknown) => api('POST', '/api/v1/storage-items/classify', tenant.tokens.account, body);
    const res = await classify({ ids: [chosen.id, alsoChosen.id.toUpperCase(), reviewed.id, foreign.id, newId()] });
    expect(res).toMatchObject({ status: 202, body: { data: { processing: 2 } } });
    const slugs = async () => new Map((await categories(tenant)).map((c) => [c.id, c.slug]));
    const done = [await settled(tenant, chosen.id), await settled(tenant, alsoChosen.id)];
    const names = await slugs();
    expect(done.map((i) => [i.status, names.get(i.category_id)])).toEqual([['in_review', 'analytics'], ['in_review', 'marketing']]);
    expect(await settled(tenant, left.id)).toMatchObject({ status: 'draft', category_id: null });
    expect(await settled(tenant, reviewed.id)).toMatchObject({ status: 'in_review', category_id: null });
    expect((await api('GET', `/api/v1/storage-items/${foreign.id}`, other.tokens.account)).body.data).toMatchObject({ status: 'draft', category_id: null });

    // `null`, or an empty body sent as JSON, is every uncategorised draft, as no body is.
    const empty = await call(t.app, 'POST', '/api/v1/storage-items/classify', { token: tenant.tokens.account, body: '', headers: { 'content-type': 'application/json' } });
    expect(empty).toMatchObject({ status: 202, body: { data: { processing: 1 } } });
    expect(await settled(tenant, left.id)).toMatchObject({ status: 'in_review', category_id: expect.any(String) });
    expect((await classify(null)).body).toEqual({ data: { processing: 0 } });
    for (const body of [{ ids: [] }, { ids: ['nope'] }, { ids: Array.from({ length: 101 }, () => left.id) }, { ids: left.id }]) {
      expect((await classify(body)).status).toBe(422);
    }
  });

  it('suggests a category for an item once, however often it is asked', async () => {
    const tenant = await accountWith({ auto_categorise: true });
    const item = await settled(tenant, (await create(tenant, { name: 'zq_basket_ping' })).id);
    expect(item).toMatchObject({ status: 'draft', category_id: null });
    const suggestions = async () => (await api('GET', '/api/v1/ai-actions', tenant.tokens.account, undefined, { actionable_id: item.id })).body.data
      .filter((a: { status: string }) => a.status === 'suggested');
    expect(await suggestions()).toHaveLength(1);
    for (let i = 0; i < 2; i++) {
      expect((await api('POST', '/api/v1/storage-items/classify', tenant.tokens.account)).body).toEqual({ data: { processing: 1 } });
      await settled(tenant, item.id);
    }
    expect(await suggestions()).toHaveLength(1);
  });
});
