/** /services: an account's third-party services, through HTTP, on the suite's engine. */
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [a, b] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Alpha', 'Beta'] });

const api = (method: string, url: string, token?: string, body?: unknown) => call(t.app, method, url, { token, body });
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function category(tenant: Tenant, name: string): Promise<string> {
  const res = await api('POST', '/api/v1/categories', tenant.tokens.account, { category: { name } });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

describe('services', () => {
  it('creates, reads, changes, lists and deletes a service', async () => {
    const analytics = await category(a, 'Service analytics');
    const created = await api('POST', '/api/v1/services', a.tokens.account, {
      service: { name: '  Google Analytics ', description: ' Counts visits. ', category_id: analytics, company_name: ' Google ', privacy_policy_url: 'https://policies.google.com/privacy' },
    });
    expect(created.status).toBe(201);
    const service = created.body.data;
    expect(service).toEqual({
      id: expect.any(String), name: 'Google Analytics', slug: 'google-analytics', description: 'Counts visits.', category_id: analytics,
      company_name: 'Google', privacy_policy_url: 'https://policies.google.com/privacy', translations: {},
      created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
    });
    expect(await api('GET', `/api/v1/services/${service.id}`, a.tokens.admin)).toMatchObject({ status: 200, body: { data: service } });

    const changed = await api('PUT', `/api/v1/services/${service.id}`, a.tokens.account, { service: { slug: 'ga4', privacy_policy_url: '' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ name: 'Google Analytics', slug: 'ga4', privacy_policy_url: null, category_id: analytics });

    const list = await api('GET', '/api/v1/services', a.tokens.account);
    expect(list.status).toBe(200);
    expect(list.body.data.map((row: { id: string }) => row.id)).toContain(service.id);
    expect(list.body.pagination).toMatchObject({ count: list.body.data.length, page: 1, prev: null });
    const filtered = await api('GET', `/api/v1/services?category_id=${analytics}`, a.tokens.account);
    expect(filtered.body.data.map((row: { id: string }) => row.id)).toEqual([service.id]);

    expect(await api('DELETE', `/api/v1/services/${service.id}`, a.tokens.account)).toMatchObject({ status: 200, body: { message: 'Service was deleted successfully' } });
    expect((await api('GET', `/api/v1/services/${service.id}`, a.tokens.account)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/services/${service.id}`, a.tokens.account)).status).toBe(404);
  });

  it('refuses what is wrong, every problem at once', async () => {
    const foreign = await category(b, 'Foreign');
    await api('POST', '/api/v1/services', a.tokens.account, { service: { name: 'Hotjar' } });
    const res = await api('POST', '/api/v1/services', a.tokens.account, {
      service: { name: ' ', slug: 'hotjar', category_id: foreign, privacy_policy_url: 'javascript:alert(1)' },
    });
    expect(res).toMatchObject({
      status: 422,
      body: invalid("Name can't be blank", 'Slug has already been taken', 'Category must exist', 'Privacy policy url is invalid'),
    });
    expect(await api('POST', '/api/v1/services', a.tokens.account, { service: { name: 'Hotjar' } })).toMatchObject({
      status: 422, body: invalid('Name has already been taken (its slug hotjar is in use; send another slug)'),
    });
    expect(await api('POST', '/api/v1/services', a.tokens.account, { service: {} })).toMatchObject({ status: 422, body: invalid("Name can't be blank") });
    expect((await api('GET', '/api/v1/services?sort=name', a.tokens.account)).status).toBe(400);
  });

  it("keeps each account's services to itself", async () => {
    const own = await api('POST', '/api/v1/services', b.tokens.account, { service: { name: 'Intercom' } });
    expect(own.status).toBe(201);
    const id = own.body.data.id;
    for (const [method, body] of [['GET'], ['PUT', { service: { name: 'Stolen' } }], ['DELETE']] as const) {
      expect((await api(method, `/api/v1/services/${id}`, a.tokens.account, body)).status).toBe(404);
    }
    expect((await api('GET', '/api/v1/services', a.tokens.account)).body.data.map((row: { id: string }) => row.id)).not.toContain(id);
    // The same slug in another account is no conflict.
    expect((await api('POST', '/api/v1/services', a.tokens.account, { service: { name: 'Intercom' } })).status).toBe(201);
    expect(await api('GET', '/api/v1/services', a.tokens.partner)).toMatchObject({
      status: 401, body: { errors: [{ code: 401, message: 'API key must belong to an account' }] },
    });
  });

  it('sets the account up (vendors_setup), and a deleted category leaves its services without one', async () => {
    const tenant = await createTenant(t.services, 'Vendors');
    const status = async () => (await api('GET', `/api/v1/accounts/${tenant.account.id}`, tenant.tokens.partner)).body.onboarding_status;
    expect(await status()).toBe('account_created');
    const created = await api('POST', '/api/v1/services', tenant.tokens.account, { service: { name: 'YouTube' } });
    expect(created.body.data.category_id).toBeNull();
    expect(await status()).toBe('vendors_setup');
    const video = await category(tenant, 'Video');
    const moved = await api('PUT', `/api/v1/services/${created.body.data.id}`, tenant.tokens.account, { service: { category_id: video } });
    expect([moved.status, moved.body.data.category_id]).toEqual([200, video]);
    expect((await api('DELETE', `/api/v1/categories/${video}`, tenant.tokens.account)).status).toBe(200);
    expect((await api('GET', `/api/v1/services/${created.body.data.id}`, tenant.tokens.account)).body.data.category_id).toBeNull();
  });
});
