/**
 * Which pages may use an account's widget: wildcards and domains are judged by the Public Suffix
 * List, a `www.` name and its bare domain are one site, and an `https_only` account (the default for
 * new ones) answers only https pages on the default port.
 */
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [tenant] } = fileApp({ env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' }, tenants: ['Origins'] });

const create = (account: Record<string, unknown>) =>
  call(t.app, 'POST', '/api/v1/accounts', { token: tenant.tokens.partner, body: { account: { name: 'Site', group_id: tenant.group.id, ...account } } });
const load = (accountId: string, origin: string) => call(t.app, 'GET', `/widget/${accountId}/config.json`, { headers: { origin } });

describe('domains and wildcards by the Public Suffix List', () => {
  it.each(['*.co.uk', '*.com', '*.github.io', 'co.uk', 'github.io'])('refuses %s, which would cover a whole public suffix', async (domain) => {
    const res = await create({ domain: 'shop.example.com', allowed_domains: [domain] });
    expect(res).toMatchObject({ status: 422, body: { errors: [{ error: 'Allowed domains is invalid' }] } });
  });

  it('refuses a public suffix as the account domain', async () => {
    expect(await create({ domain: 'co.uk' })).toMatchObject({ status: 422, body: { errors: [{ error: 'Domain is invalid' }] } });
  });

  it('accepts wildcards under registrable domains, ICANN or private', async () => {
    const res = await create({ domain: 'shop.example.co.uk', allowed_domains: ['*.example.co.uk', '*.mine.github.io', 'localhost', '127.0.0.1'] });
    expect(res.status).toBe(201);
    expect(res.body.allowed_domains).toEqual(['*.example.co.uk', '*.mine.github.io', 'localhost', '127.0.0.1']);
  });
});

describe('https_only', () => {
  it('is true for a new account, and then only https pages on the default port may use the widget', async () => {
    const res = await create({ domain: 'secure.example.com', allowed_domains: ['localhost'] });
    expect(res.body.https_only).toBe(true);
    const id = res.body.id;
    expect((await load(id, 'https://secure.example.com')).status).toBe(200);
    expect((await load(id, 'https://www.secure.example.com')).status).toBe(200);
    for (const origin of ['http://secure.example.com', 'https://secure.example.com:8443', 'http://secure.example.com:443']) {
      expect(await load(id, origin)).toMatchObject({ status: 403, body: { errors: [{ code: 403, message: 'Origin is not allowed for this account' }] } });
    }
    // Local development is not held to it.
    expect((await load(id, 'http://localhost:5173')).status).toBe(200);
  });

  it('can be turned off: then http and other ports are accepted', async () => {
    const res = await create({ domain: 'plain.example.com', https_only: false });
    expect(res.body.https_only).toBe(false);
    for (const origin of ['http://plain.example.com', 'https://plain.example.com:8443']) expect((await load(res.body.id, origin)).status).toBe(200);
    expect((await load(res.body.id, 'http://evil.example.com')).status).toBe(403);
  });

  it('changes with PUT and shows in the account', async () => {
    const res = await create({ domain: 'toggle.example.com' });
    const put = await call(t.app, 'PUT', `/api/v1/accounts/${res.body.id}`, { token: tenant.tokens.partner, body: { account: { https_only: false } } });
    expect(put).toMatchObject({ status: 200, body: { https_only: false } });
    const stored = await t.services.db.selectFrom('accounts').select('https_only').where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(stored.https_only).toBe(false);
  });
});

describe('www and the bare domain are one site', () => {
  it('lets a www domain cover its bare domain, and the other way round, but no other subdomain of a www name', async () => {
    const www = await create({ domain: 'www.twin.example', allowed_domains: ['partner.example'] });
    expect((await load(www.body.id, 'https://twin.example')).status).toBe(200);
    expect((await load(www.body.id, 'https://www.twin.example')).status).toBe(200);
    expect((await load(www.body.id, 'https://www.partner.example')).status).toBe(200);
    expect((await load(www.body.id, 'https://partner.example')).status).toBe(200);
    expect((await load(www.body.id, 'https://shop.partner.example')).status).toBe(403);
    expect((await load(www.body.id, 'https://eviltwin.example')).status).toBe(403);
  });
});
