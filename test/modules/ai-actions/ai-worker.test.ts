import { describe, expect, it } from 'vitest';
import { DEFAULT_CLASSIFIER_OPTIONS } from '../../../src/ai/classifier/classifier.ts';
import { newId } from '../../../src/db/ids.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { insertCategory } from '../../helpers/records.ts';
import { createItem, settledItem } from '../../helpers/storage-items.ts';
import { recordScannedItems } from '../../../src/modules/storage-items/scanned-items.service.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t } = fileApp({ env: { RATE_LIMIT_MAX: '100000' } });

const api = (method: string, url: string, token: string, body?: unknown, query?: Record<string, string>) =>
  call(t.app, method, url, { token, body, query });

/** A fresh account with these AI settings (everything else off). */
async function accountWith(ai_features: Record<string, unknown>): Promise<Tenant> {
  const tenant = await createTenant(t.services, `Ai ${newId().slice(-6)}`);
  const res = await api('PATCH', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.partner, { account: { ai_features } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return tenant;
}

const create = (tenant: Tenant, item: Record<string, unknown>) => createItem(t.app, tenant, item);

const settled = (tenant: Tenant, id: string) => settledItem(t.app, tenant, id);

async function actionsOn(tenant: Tenant, query: Record<string, string>) {
  const res = await api('GET', '/api/v1/ai-actions', tenant.tokens.account, undefined, { limit: '100', ...query });
  expect(res.status).toBe(200);
  return res.body.data as Array<Record<string, any>>;
}

const ON = { auto_categorise: true, autofill: true };
const GA_PURPOSE = 'Keeps a random client id that tells one visitor from another in Google Analytics';

describe('the AI on storage items created through the API', () => {
  it('categorises and describes an item in the background, and lists what it did', async () => {
    const tenant = await accountWith(ON);
    const created = await create(tenant, { name: '_ga' });
    expect(created).toMatchObject({ status: 'processing', category_id: null });

    const item = await settled(tenant, created.id);
    const categories = await api('GET', '/api/v1/categories', tenant.tokens.account);
    const analytics = categories.body.data.find((c: { slug: string }) => c.slug === 'analytics');
    // Created by the AI, it waits unpublished for an admin (auto_approve is off).
    expect(analytics).toMatchObject({ name: 'Analytics', required: false, published: false });
    expect(item).toMatchObject({
      status: 'in_review', approved_by_type: null, category_id: analytics.id,
      description: GA_PURPOSE, company_name: 'Google Analytics', duration: '2 years',
    });

    const actions = await actionsOn(tenant, { actionable_id: created.id });
    expect(actions.map((a) => [a.action_type, a.status])).toEqual([['auto_categorise', 'applied'], ['autofill', 'applied'], ['translate', 'applied']]);
    expect(actions[0]).toMatchObject({
      actionable_type: 'StorageItem',
      suggested_params: { category_id: analytics.id, status: 'in_review' },
      previous_params: { category_id: null, status: 'draft' },
      confidence: 0.98,
      source: expect.stringMatching(/^registry: exact name "_ga" \(Google Analytics; https:\/\/cloud\.google\.com\/\S+, read \d{4}-\d\d-\d\d\)$/),
    });
    expect(actions[1]).toMatchObject({
      suggested_params: { description: GA_PURPOSE, company_name: 'Google Analytics', duration: '2 years' },
      previous_params: { description: '', company_name: '', duration: '' },
    });
    // The duration in the other languages the banner speaks (by default every one it has built-in words for).
    expect(actions[2]).toMatchObject({
      suggested_params: { translations: { de: { duration: '2 Jahre' }, fr: { duration: '2 ans' }, es: { duration: '2 años' }, it: { duration: '2 anni' }, nl: { duration: '2 jaar' } } },
      previous_params: { translations: {} },
    });
    const creation = await actionsOn(tenant, { actionable_type: 'Category' });
    expect(creation).toEqual([expect.objectContaining({
      action_type: 'auto_categorise', actionable_id: analytics.id, previous_params: {}, status: 'applied',
      suggested_params: expect.objectContaining({ name: 'Analytics', slug: 'analytics', published: false }),
    })]);
  });

  it('uses a category the account already has, and never replaces what a person wrote', async () => {
    const tenant = await accountWith(ON);
    const statistics = await insertCategory(t.services, tenant.account.id, { name: 'Statistics' });
    const created = await create(tenant, { name: '_gid', description: 'Written by a person' });
    const item = await settled(tenant, created.id);
    expect(item).toMatchObject({ category_id: statistics.id, description: 'Written by a person', company_name: 'Google Analytics' });
    expect(await actionsOn(tenant, { actionable_type: 'Category' })).toEqual([]);
  });

  it('revert restores the item, and the AI does not put back what was reverted', async () => {
    const tenant = await accountWith(ON);
    const created = await create(tenant, { name: '_fbp' });
    await settled(tenant, created.id);
    const [categorise, autofill] = await actionsOn(tenant, { actionable_id: created.id });
    const reverted = await api('POST', `/api/v1/ai-actions/${categorise.id}/revert`, tenant.tokens.admin);
    expect(reverted).toMatchObject({ status: 200, body: { data: { id: categorise.id, status: 'reverted' } } });
    const afterRevert = (await api('GET', `/api/v1/storage-items/${created.id}`, tenant.tokens.account)).body.data;
    expect(afterRevert).toMatchObject({ category_id: null, status: 'draft', company_name: 'Meta' });

    // A person's later edit of the description stays through the revert of the autofill.
    await api('PUT', `/api/v1/storage-items/${created.id}`, tenant.tokens.account, { storage_item: { description: 'Ours' } });
    await api('POST', `/api/v1/ai-actions/${autofill.id}/revert`, tenant.tokens.admin);
    expect((await api('GET', `/api/v1/storage-items/${created.id}`, tenant.tokens.account)).body.data)
      .toMatchObject({ description: 'Ours', company_name: '', duration: '' });

    // Renaming gives the AI the item again: it fills what is empty, except what people reverted.
    const renamed = await api('PUT', `/api/v1/storage-items/${created.id}`, tenant.tokens.account, { storage_item: { name: '_fbc' } });
    expect(renamed.body.data.status).toBe('processing');
    expect(await settled(tenant, created.id)).toMatchObject({ category_id: null, description: 'Ours', company_name: '', duration: '' });
  });

  it('categorises a wildcard item and a concrete item matching it', async () => {
    const tenant = await accountWith(ON);
    const wildcard = await create(tenant, { name: '_ga_*' });
    const concrete = await create(tenant, { name: '_ga_K2J4XQ9' });
    expect(concrete.wildcard_cookie_id).toBe(wildcard.id);
    const [w, c] = [await settled(tenant, wildcard.id), await settled(tenant, concrete.id)];
    expect(w).toMatchObject({ is_wildcard_cookie: true, status: 'in_review', company_name: 'Google' });
    expect(c).toMatchObject({ is_wildcard_cookie: false, status: 'in_review', category_id: w.category_id, wildcard_cookie_id: wildcard.id });
    const [action] = await actionsOn(tenant, { actionable_id: concrete.id, action_type: 'auto_categorise' });
    expect(action.source).toBe('open-cookie-database: pattern "_ga_*" (Google)');
  });

  it('declines a name nobody knows: back to draft, with its guess only suggested', async () => {
    const tenant = await accountWith(ON);
    const created = await create(tenant, { name: 'zq' });
    expect(await settled(tenant, created.id)).toMatchObject({ status: 'draft', category_id: null, description: '' });
    const actions = await actionsOn(tenant, { actionable_id: created.id });
    expect(actions).toEqual([expect.objectContaining({ action_type: 'auto_categorise', status: 'suggested' })]);
    expect(actions[0].confidence).toBeLessThan(DEFAULT_CLASSIFIER_OPTIONS.modelThreshold);
    const revert = await api('POST', `/api/v1/ai-actions/${actions[0].id}/revert`, tenant.tokens.admin);
    expect(revert.status).toBe(422);
  });

  it('reads a name a scan saw a vendor\'s script write as that vendor\'s', async () => {
    const tenant = await accountWith(ON);
    const seen = { domain: 'www.shop.example', storage_type: 'local_storage' as const, duration: 'persistent', path: '/', same_site: null, partitioned: false };
    const { created } = await recordScannedItems(t.services.db, tenant.account.id, [
      { ...seen, name: 'vid_state', set_by: 'https://widget.intercom.io/widget/abc' },
      { ...seen, name: 'vid_state_2', set_by: 'https://www.shop.example/app.js' },
    ], new Date());
    for (const row of created) t.services.ai.submit(row);
    const [byVendor, byItself] = [await settled(tenant, created[0].id), await settled(tenant, created[1].id)];
    expect(byVendor).toMatchObject({ status: 'in_review', company_name: 'Intercom' });
    const [action] = await actionsOn(tenant, { actionable_id: byVendor.id, action_type: 'auto_categorise' });
    expect(action).toMatchObject({ status: 'applied', source: 'registry vendor: written by a script on widget.intercom.io (Intercom)' });
    // The site's own script says nothing: the same kind of name is left to a person.
    expect(byItself).toMatchObject({ status: 'draft', category_id: null });
  });

  it('reads a vendor\'s necessary cookie on its own domain as there for the feature the site embeds', async () => {
    const tenant = await accountWith(ON);
    await api('PATCH', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.partner, { account: { domain: 'www.shop.example' } });
    const seen = { storage_type: 'cookie' as const, duration: 'session', path: '/', same_site: 'None' as const, partitioned: false, set_by: null };
    const { created } = await recordScannedItems(t.services.db, tenant.account.id, [
      { ...seen, name: '__cf_bm', domain: '.vimeo.com' },
      { ...seen, name: '__cf_bm', domain: '.shop.example' },
    ], new Date());
    for (const row of created) t.services.ai.submit(row);
    for (const row of created) await settled(tenant, row.id);
    const [embedded, own] = await Promise.all(created.map(async (row) => (await actionsOn(tenant, { actionable_id: row.id, action_type: 'auto_categorise' }))[0]));
    expect(embedded.source).toMatch(/there for its functional feature \(the embed rule\)$/);
    expect(own.source).not.toMatch(/embed rule/);
  });

  it('leaves alone a field whose suggestion a person rejected', async () => {
    const tenant = await accountWith(ON);
    const created = await create(tenant, { name: 'zq' });
    await settled(tenant, created.id);
    const [suggestion] = await actionsOn(tenant, { actionable_id: created.id });
    expect((await api('POST', `/api/v1/ai-actions/${suggestion.id}/reject`, tenant.tokens.admin)).status).toBe(200);
    // Renamed to a name the AI knows well, the item gets its details filled in but no category.
    await api('PUT', `/api/v1/storage-items/${created.id}`, tenant.tokens.account, { storage_item: { name: '_fbp' } });
    expect(await settled(tenant, created.id)).toMatchObject({ category_id: null, company_name: 'Meta' });
    const after = await actionsOn(tenant, { actionable_id: created.id });
    expect(after.map((a) => [a.action_type, a.status])).toEqual([['auto_categorise', 'rejected'], ['autofill', 'applied'], ['translate', 'applied']]);
  });
});

describe('account settings', () => {
  it('are off by default: the item stays a draft and nothing is logged', async () => {
    const tenant = await createTenant(t.services, 'Ai off');
    const account = await api('GET', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.account);
    expect(account.body.ai_features).toEqual({ autofill: false, auto_categorise: false, auto_approve: false, auto_approve_threshold: 0.95 });
    const created = await create(tenant, { name: '_ga' });
    expect(created.status).toBe('draft');
    expect(await actionsOn(tenant, {})).toEqual([]);
  });

  it('change only what is sent, and refuse a threshold outside 0..1', async () => {
    const tenant = await accountWith({ autofill: true });
    const res = await api('PUT', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.admin, { account: { ai_features: { auto_approve: true } } });
    expect(res.body.ai_features).toEqual({ autofill: true, auto_categorise: false, auto_approve: true, auto_approve_threshold: 0.95 });
    const bad = await api('PATCH', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.admin, { account: { ai_features: { auto_approve_threshold: 2 } } });
    expect(bad.status).toBe(422);
  });

  it('without auto_categorise the AI only fills in', async () => {
    const tenant = await accountWith({ autofill: true });
    const item = await settled(tenant, (await create(tenant, { name: '_fbp' })).id);
    expect(item).toMatchObject({ status: 'in_review', category_id: null, company_name: 'Meta' });
    expect((await actionsOn(tenant, {})).map((a) => a.action_type)).toEqual(['autofill', 'translate']);
  });

  it('without autofill the AI only categorises', async () => {
    const tenant = await accountWith({ auto_categorise: true });
    const item = await settled(tenant, (await create(tenant, { name: '_fbp' })).id);
    expect(item).toMatchObject({ status: 'in_review', description: '', company_name: '', duration: '' });
    expect(item.category_id).not.toBeNull();
    expect((await actionsOn(tenant, { actionable_type: 'StorageItem' })).map((a) => a.action_type)).toEqual(['auto_categorise']);
  });

  it('auto_approve finalises as AI from the threshold up, and only then', async () => {
    const tenant = await accountWith({ ...ON, auto_approve: true, auto_approve_threshold: 0.97 });
    const sure = await settled(tenant, (await create(tenant, { name: '_gid' })).id);
    expect(sure).toMatchObject({ status: 'finalised', approved_by_type: 'AI' });
    const [approval] = await actionsOn(tenant, { actionable_id: sure.id, action_type: 'auto_approve' });
    expect(approval).toMatchObject({ suggested_params: { status: 'finalised', approved_by_type: 'AI' }, previous_params: { status: 'in_review', approved_by_type: null } });
    const pattern = await settled(tenant, (await create(tenant, { name: '_ga_Z1Y2X3' })).id);
    expect(pattern).toMatchObject({ status: 'in_review', approved_by_type: null });

    await api('POST', `/api/v1/ai-actions/${approval.id}/revert`, tenant.tokens.admin);
    expect((await api('GET', `/api/v1/storage-items/${sure.id}`, tenant.tokens.account)).body.data).toMatchObject({ status: 'in_review', approved_by_type: null });
  });
});

describe('the worker', () => {
  it('picks up items left processing, as after a crash', async () => {
    const tenant = await accountWith(ON);
    const id = newId();
    await t.services.db.insertInto('storage_items').values({ id, account_id: tenant.account.id, name: 'PHPSESSID', status: 'processing' }).execute();
    await t.services.ai.resume();
    expect(await settled(tenant, id)).toMatchObject({ status: 'in_review', company_name: 'PHP.net', duration: 'session' });
  });

  it('leaves alone an item a person moved out of processing', async () => {
    const tenant = await accountWith(ON);
    const id = newId();
    await t.services.db.insertInto('storage_items').values({ id, account_id: tenant.account.id, name: '_gat', status: 'in_review' }).execute();
    t.services.ai.submit({ id, account_id: tenant.account.id, status: 'processing' });
    // A second item submitted after it is done only once the first one was looked at.
    const after = await create(tenant, { name: '_gid' });
    await settled(tenant, after.id);
    expect((await api('GET', `/api/v1/storage-items/${id}`, tenant.tokens.account)).body.data).toMatchObject({ status: 'in_review', category_id: null });
    expect(await actionsOn(tenant, { actionable_id: id })).toEqual([]);
  });
});
