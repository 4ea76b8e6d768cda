import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { reasonOf } from '../../../src/modules/ai-actions/ai-action-reason.ts';
import { insertAiAction } from '../../../src/modules/ai-actions/ai-actions.repository.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { insertCategory } from '../../helpers/records.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [tenant, other] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Ai', 'NotAi'] });

/** A storage item the AI categorised and described, as the classifier records it. */
async function aiCategorisedItem() {
  const analytics = await insertCategory(t.services, tenant.account.id, { name: `Analytics ${newId().slice(-4)}` });
  const id = newId();
  await t.services.db.insertInto('storage_items').values({
    id, account_id: tenant.account.id, name: '_ga', category_id: analytics.id, description: 'Google Analytics visitor id', status: 'in_review',
  }).execute();
  const action = await insertAiAction(t.services.db, {
    account_id: tenant.account.id, action_type: 'auto_categorise', actionable_type: 'StorageItem', actionable_id: id,
    suggested_params: { category_id: analytics.id, description: 'Google Analytics visitor id', status: 'in_review' },
    previous_params: { category_id: null, description: '', status: 'draft' },
    confidence: 0.97, source: 'open-cookie-database',
  });
  return { id, action, analytics };
}

const item = (id: string) => t.services.db.selectFrom('storage_items').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('AI actions', () => {
  it('lists and filters the actions, and shows one', async () => {
    const { id, action } = await aiCategorisedItem();
    const list = await call(t.app, 'GET', '/api/v1/ai-actions', { token: tenant.tokens.member, query: { actionable_id: id } });
    expect(list.status).toBe(200);
    expect(list.body.pagination.count).toBe(1);
    expect(list.body.data[0]).toEqual({
      id: action.id, action_type: 'auto_categorise', actionable_type: 'StorageItem', actionable_id: id,
      suggested_params: action.suggested_params, previous_params: action.previous_params,
      confidence: 0.97, source: 'open-cookie-database', reason: 'It rests on: open-cookie-database.', status: 'applied',
      created_at: action.created_at.toISOString(),
    });
    const byType = await call(t.app, 'GET', '/api/v1/ai-actions', { token: tenant.tokens.member, query: { action_type: 'translate' } });
    expect(byType.body.data).toEqual([]);
    const bad = await call(t.app, 'GET', '/api/v1/ai-actions', { token: tenant.tokens.member, query: { action_type: 'guess' } });
    expect(bad.status).toBe(400);
    const applied = await call(t.app, 'GET', '/api/v1/ai-actions', { token: tenant.tokens.member, query: { actionable_id: id, status: 'applied' } });
    expect(applied.body.data.map((a: { id: string }) => a.id)).toEqual([action.id]);
    const waiting = await call(t.app, 'GET', '/api/v1/ai-actions', { token: tenant.tokens.member, query: { actionable_id: id, status: 'suggested' } });
    expect(waiting.body).toMatchObject({ pagination: { count: 0 }, data: [] });
    expect((await call(t.app, 'GET', '/api/v1/ai-actions', { token: tenant.tokens.member, query: { status: 'pending' } })).status).toBe(400);
    const one = await call(t.app, 'GET', `/api/v1/ai-actions/${action.id}`, { token: tenant.tokens.account });
    expect(one.body.data.id).toBe(action.id);
    const foreign = await call(t.app, 'GET', `/api/v1/ai-actions/${action.id}`, { token: other.tokens.account });
    expect(foreign).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });
  });

  it('reverts: the item gets its previous values back and the action is marked reverted, once', async () => {
    const { id, action } = await aiCategorisedItem();
    const res = await call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/revert`, { token: tenant.tokens.admin });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: action.id, status: 'reverted' });
    expect(await item(id)).toMatchObject({ category_id: null, description: '', status: 'draft' });
    const again = await call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/revert`, { token: tenant.tokens.admin });
    expect(again).toMatchObject({ status: 422, body: { errors: [{ error: 'Action has already been reverted' }] } });
  });

  it('keeps a person\'s later edit when reverting', async () => {
    const { id, action } = await aiCategorisedItem();
    await t.services.db.updateTable('storage_items').set({ description: 'Written by a person' }).where('id', '=', id).execute();
    await call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/revert`, { token: tenant.tokens.admin });
    expect(await item(id)).toMatchObject({ category_id: null, description: 'Written by a person', status: 'draft' });
  });

  it('undoes the creation of a category only while it is empty', async () => {
    const created = await insertCategory(t.services, tenant.account.id, { name: 'Marketing' });
    const action = await insertAiAction(t.services.db, {
      account_id: tenant.account.id, action_type: 'auto_categorise', actionable_type: 'Category', actionable_id: created.id,
      suggested_params: { name: 'Marketing', slug: created.slug }, previous_params: {}, confidence: 0.9, source: 'standard-categories',
    });
    await t.services.db.insertInto('storage_items').values({ id: newId(), account_id: tenant.account.id, name: '_fbp', category_id: created.id }).execute();
    const refused = await call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/revert`, { token: tenant.tokens.admin });
    expect(refused.status).toBe(422);
    await t.services.db.deleteFrom('storage_items').where('category_id', '=', created.id).execute();
    expect((await call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/revert`, { token: tenant.tokens.admin })).status).toBe(200);
    const gone = await t.services.db.selectFrom('categories').select('id').where('id', '=', created.id).executeTakeFirst();
    expect(gone).toBeUndefined();
  });

  it('lets only admins revert', async () => {
    const { action } = await aiCategorisedItem();
    const res = await call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/revert`, { token: tenant.tokens.member });
    expect(res).toMatchObject({ status: 403, body: { errors: [{ code: 403, message: 'User must be an admin of this account' }] } });
  });

  it('rejects a suggestion: only its status changes, once, and only for an admin of its account', async () => {
    const id = newId();
    await t.services.db.insertInto('storage_items').values({ id, account_id: tenant.account.id, name: 'mystery_cookie' }).execute();
    const suggestion = await insertAiAction(t.services.db, {
      account_id: tenant.account.id, action_type: 'auto_categorise', actionable_type: 'StorageItem', actionable_id: id,
      suggested_params: { category: 'analytics' }, previous_params: {}, confidence: 0.41, status: 'suggested',
      source: 'model: logistic regression on the registry and the cookie databases; declined: not confident enough to decide',
    });
    const before = await item(id);
    const path = `/api/v1/ai-actions/${suggestion.id}/reject`;
    expect((await call(t.app, 'POST', path, { token: tenant.tokens.member })).status).toBe(403);
    expect(await call(t.app, 'POST', path, { token: other.tokens.admin })).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });
    const res = await call(t.app, 'POST', path, { token: tenant.tokens.admin });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: suggestion.id, status: 'rejected', suggested_params: { category: 'analytics' } });
    expect(res.body.data.reason).toBe('No list names it: a model trained on the registry and the cookie databases guessed from the name. '
      + 'Only suggested: the AI was not sure enough to apply it.');
    expect(await item(id)).toEqual(before);
    const stored = await t.services.db.selectFrom('ai_actions').select('status').where('id', '=', suggestion.id).executeTakeFirstOrThrow();
    expect(stored.status).toBe('rejected');

    const again = await call(t.app, 'POST', path, { token: tenant.tokens.admin });
    expect(again).toMatchObject({ status: 422, body: { errors: [{ error: 'Action has already been rejected' }] } });
    const revert = await call(t.app, 'POST', `/api/v1/ai-actions/${suggestion.id}/revert`, { token: tenant.tokens.admin });
    expect(revert).toMatchObject({ status: 422, body: { errors: [{ error: 'Action was rejected and never applied' }] } });
  });

  it('refuses to reject an action that was applied: that one is reverted', async () => {
    const { action } = await aiCategorisedItem();
    const res = await call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/reject`, { token: tenant.tokens.admin });
    expect(res).toMatchObject({ status: 422, body: { errors: [{ error: 'Action was applied, not suggested; revert it instead' }] } });
    expect((await call(t.app, 'GET', `/api/v1/ai-actions/${action.id}`, { token: tenant.tokens.admin })).body.data.status).toBe('applied');
  });
});

/** An uncategorised item of the tenant and the AI's suggestion of a standard category for it. */
async function suggestion(of: Tenant, category: unknown, status: 'draft' | 'processing' | 'finalised' = 'draft') {
  const id = newId();
  await t.services.db.insertInto('storage_items').values({ id, account_id: of.account.id, name: `mystery_${id.slice(-4)}`, status }).execute();
  const action = await insertAiAction(t.services.db, {
    account_id: of.account.id, action_type: 'auto_categorise', actionable_type: 'StorageItem', actionable_id: id,
    suggested_params: { category }, previous_params: {}, confidence: 0.62, status: 'suggested',
    source: 'model: logistic regression on the registry and the cookie databases; declined: not confident enough to decide',
  });
  return { id, action, accept: (token = of.tokens.admin) => call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/accept`, { token }) };
}

describe('accepting a suggestion', () => {
  it('moves the item to the account\'s category of that meaning, marks the action applied, and reverts', async () => {
    const owner = await createTenant(t.services, 'Accepting');
    const ads = await insertCategory(t.services, owner.account.id, { name: 'Marketing & Ads' });
    const { id, action, accept } = await suggestion(owner, 'marketing');
    expect((await accept(owner.tokens.member)).status).toBe(403);
    expect(await accept(other.tokens.admin)).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });

    const res = await accept();
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: action.id, status: 'applied',
      suggested_params: { category: 'marketing', category_id: ads.id, status: 'in_review' },
      previous_params: { category_id: null, status: 'draft' },
      reason: 'No list names it: a model trained on the registry and the cookie databases guessed from the name. '
        + 'The AI was not sure enough to apply it; a person accepted it.',
    });
    expect(await item(id)).toMatchObject({ category_id: ads.id, status: 'in_review' });
    const categories = await t.services.db.selectFrom('categories').select('id').where('account_id', '=', owner.account.id).execute();
    expect(categories).toHaveLength(1);
    expect(await accept()).toMatchObject({ status: 422, body: { errors: [{ error: 'Action was applied, not suggested' }] } });

    expect((await call(t.app, 'POST', `/api/v1/ai-actions/${action.id}/revert`, { token: owner.tokens.admin })).status).toBe(200);
    expect(await item(id)).toMatchObject({ category_id: null, status: 'draft' });
  });

  it('creates the category, published and logged, when the account has none of that meaning', async () => {
    const owner = await createTenant(t.services, 'AcceptingNew');
    const before = await call(t.app, 'GET', '/api/v1/banner', { token: owner.tokens.admin });
    const { id, accept } = await suggestion(owner, 'functional', 'finalised');
    const res = await accept();
    expect(res.status).toBe(200);
    // A finalised item keeps its status: only the category was suggested.
    expect(res.body.data.previous_params).toEqual({ category_id: null });
    const stored = await item(id);
    expect(stored.status).toBe('finalised');
    const category = await t.services.db.selectFrom('categories').selectAll().where('id', '=', stored.category_id!).executeTakeFirstOrThrow();
    expect(category).toMatchObject({ account_id: owner.account.id, slug: 'functional', published: true });
    const log = await call(t.app, 'GET', '/api/v1/ai-actions', { token: owner.tokens.admin, query: { actionable_id: category.id } });
    expect(log.body.data).toMatchObject([{ actionable_type: 'Category', status: 'applied', previous_params: {} }]);
    expect(log.body.data[0].reason).toMatch(/^Made from the standard categories when a person accepted the AI's suggestion for "mystery_/);
    const after = await call(t.app, 'GET', '/api/v1/banner', { token: owner.tokens.admin });
    expect(after.body.data.revision).toBe(before.body.data.revision + 1);
  });

  it('refuses what cannot be accepted, changing nothing', async () => {
    const owner = await createTenant(t.services, 'AcceptingNot');
    const busy = await suggestion(owner, 'analytics', 'processing');
    expect(await busy.accept()).toMatchObject({ status: 422, body: { errors: [{ error: 'The AI is working on this item; retry in a moment' }] } });
    expect((await item(busy.id)).category_id).toBeNull();
    const odd = await suggestion(owner, 'tracking');
    expect(await odd.accept()).toMatchObject({ status: 422, body: { errors: [{ error: 'Only a suggested category can be accepted' }] } });
    const gone = await suggestion(owner, 'analytics');
    await t.services.db.deleteFrom('storage_items').where('id', '=', gone.id).execute();
    expect(await gone.accept()).toMatchObject({ status: 422, body: { errors: [{ error: 'The record this action changed no longer exists' }] } });
    const decided = await suggestion(owner, 'marketing');
    const chosen = await insertCategory(t.services, owner.account.id, { name: 'Chosen by hand' });
    await t.services.db.updateTable('storage_items').set({ category_id: chosen.id }).where('id', '=', decided.id).execute();
    expect(await decided.accept()).toMatchObject({ status: 422, body: { errors: [{ error: 'The item has a category already; reject the suggestion or change the item' }] } });
    expect((await item(decided.id)).category_id).toBe(chosen.id);
    await t.services.db.updateTable('storage_items').set({ category_id: null }).where('id', '=', decided.id).execute();
    await t.services.db.deleteFrom('categories').where('id', '=', chosen.id).execute();
    const rejected = await suggestion(owner, 'analytics');
    await call(t.app, 'POST', `/api/v1/ai-actions/${rejected.action.id}/reject`, { token: owner.tokens.admin });
    expect(await rejected.accept()).toMatchObject({ status: 422, body: { errors: [{ error: 'Action was rejected, not suggested' }] } });
    const categories = await t.services.db.selectFrom('categories').select('id').where('account_id', '=', owner.account.id).execute();
    expect(categories).toEqual([]);
  });
});

describe('the reason of an AI action', () => {
  it.each([
    ['registry: exact name "_fbp" (Meta; https://www.facebook.com/policies/cookies/, read 2026-11-01)',
      'The vendor registry lists Meta for the exact name "_fbp".'],
    ['registry vendor: prefix "_hj" (Hotjar)', 'The name is not listed, but its prefix _hj belongs to Hotjar in the vendor registry.'],
    ['registry vendor: domain cdn.shop.example (Shopify; necessary name)',
      'The name is not listed, but its domain cdn.shop.example belongs to Shopify in the vendor registry.'],
    ['open-cookie-database: pattern "_pk_id*" (Matomo)', 'The Open Cookie Database lists Matomo for the pattern "_pk_id*".'],
    ['open-cookie-database: exact name "APISID" (Google); relabelled: described as its sibling `SID`, `HSID`, which the registry lists as functional',
      "The Open Cookie Database lists Google for the exact name \"APISID\". Read under the project's labelling convention: described as its sibling `SID`, `HSID`, which the registry lists as functional."],
    ['model: logistic regression on the registry and the cookie databases, Google Analytics (third-party-web)',
      'No list names it: a model trained on the registry and the cookie databases guessed from the name and its domain (Google Analytics).'],
    ['third-party-web: Hotjar', 'The domain belongs to Hotjar (third-party-web).'],
    ['standard categories, for "_ga"', 'The AI made this standard category to hold "_ga".'],
    ['llm: small-model', 'Written by the language model small-model.'],
    ['something new', 'It rests on: something new.'],
  ])('reads %s', (source, reason) => {
    expect(reasonOf(source)).toBe(reason);
  });
});
