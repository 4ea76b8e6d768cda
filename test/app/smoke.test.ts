import { describe, expect, it } from 'vitest';
import { call } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';
import { createTenant } from '../helpers/tenants.ts';

const { t } = fileApp();

describe('smoke', () => {
  it('serves groups to a partner', async () => {
    const tenant = await createTenant(t.services);
    const res = await call(t.app, 'GET', '/api/v1/groups', { token: tenant.tokens.partner });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
  });
});
