import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { call } from './app.ts';
import type { Tenant } from './tenants.ts';

/** Creates a storage item with the tenant's account token; anything but 201 fails the test. */
export async function createItem(app: FastifyInstance, tenant: Tenant, item: Record<string, unknown>) {
  const res = await call(app, 'POST', '/api/v1/storage-items', { token: tenant.tokens.account, body: { storage_item: item } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** The item once the AI has let go of it: polls its status, never sleeps a fixed time. */
export async function settledItem(app: FastifyInstance, tenant: Tenant, id: string) {
  for (let attempt = 0; attempt < 500; attempt++) {
    const res = await call(app, 'GET', `/api/v1/storage-items/${id}`, { token: tenant.tokens.account });
    if (res.body.data.status !== 'processing') return res.body.data;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`storage item ${id} is still processing`);
}
