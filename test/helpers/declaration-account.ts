import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { call } from './app.ts';
import type { Tenant } from './tenants.ts';

/** A name no page may show as markup: each is checked to appear only as text. */
export const HOSTILE_NAME = '<img src=x onerror="window.pwned=1">';
export const HOSTILE_PURPOSE = '</td></tr></table><script>window.pwned=2</script>';

/**
 * An account for the declaration and the placeholders, speaking English and German: a required
 * category and two optional ones, finalised items in each (one with a hostile name), one draft item
 * that no declaration may list, and the services YouTube (marketing) and Vimeo (analytics).
 */
export async function declarationAccount(app: FastifyInstance, tenant: Tenant) {
  const token = tenant.tokens.account;
  const post = async (path: string, body: object) => {
    const res = await call(app, 'POST', path, { token, body });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
    return res.body.data as { id: string; slug: string };
  };
  const banner = await call(app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { languages: ['en', 'de'] } } });
  expect(banner.status, JSON.stringify(banner.body)).toBe(200);
  const necessary = await post('/api/v1/categories', { category: {
    name: 'Necessary', description: 'Keeps the shop working.', required: true,
    translations: { de: { name: 'Notwendig', description: 'Hält den Shop am Laufen.' } },
  } });
  const analytics = await post('/api/v1/categories', { category: {
    name: 'Analytics', description: 'Counts visits.', translations: { de: { name: 'Statistik', description: 'Zählt Besuche.' } },
  } });
  const marketing = await post('/api/v1/categories', { category: {
    name: 'Marketing', description: 'Shows ads and videos.', translations: { de: { name: 'Werbung', description: 'Zeigt Werbung und Videos.' } },
  } });
  const item = (fields: object) => post('/api/v1/storage-items', { storage_item: { status: 'finalised', domain: 'shop.example', ...fields } });
  await item({ name: 'cart', category_id: necessary.id, company_name: 'Shop Ltd', duration: 'session', description: 'Keeps the basket.',
    translations: { de: { description: 'Merkt sich den Warenkorb.', duration: 'Sitzung' } } });
  await item({ name: '_pk_id', category_id: analytics.id, company_name: 'Matomo', duration: '13 months', description: 'Tells visitors apart.',
    translations: { de: { description: 'Unterscheidet Besucher.', duration: '13 Monate' } } });
  await item({ name: 'visits_seen', category_id: analytics.id, company_name: 'Matomo', duration: 'persistent', description: 'Counts pages seen.',
    storage_type: 'local_storage' });
  await item({ name: HOSTILE_NAME, category_id: marketing.id, company_name: 'Ad "Network" & Co', duration: '90 days', description: HOSTILE_PURPOSE });
  await item({ name: 'draft_only', category_id: marketing.id, company_name: 'Nobody', duration: '1 day', description: 'Not reviewed.', status: 'draft' });
  await post('/api/v1/services', { service: { name: 'YouTube', slug: 'youtube', company_name: 'Google', category_id: marketing.id,
    privacy_policy_url: 'https://policies.google.com/privacy', description: 'Videos.' } });
  await post('/api/v1/services', { service: { name: 'Vimeo', slug: 'vimeo', company_name: 'Vimeo Inc.', category_id: analytics.id, description: 'Videos.' } });
  return { necessary, analytics, marketing };
}
