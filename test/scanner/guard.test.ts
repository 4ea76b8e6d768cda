/**
 * The scanner is never a tool to reach what a server can reach and the internet cannot: which
 * addresses are refused, the API refusing such a starting URL, and, in the browser, a redirect
 * and subresources to a refused address never leaving the machine's proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, resolveAllowed, RefusedAddressError, addressPolicy } from '../../src/scanner/address-guard.ts';
import { call, ENGINE, startApp, type TestApp } from '../helpers/app.ts';
import { describeBrowser } from '../helpers/browser.ts';
import { crawlDirectly, startScanSite, type ScanSite } from '../helpers/scan-site.ts';
import { createTenant } from '../helpers/tenants.ts';

describe('which addresses a scan may reach', () => {
  it.each([
    ['127.0.0.1', false], ['127.8.9.10', false], ['10.1.2.3', false], ['172.16.0.1', false], ['172.31.255.255', false],
    ['192.168.1.1', false], ['169.254.169.254', false], ['100.64.0.1', false], ['0.0.0.0', false], ['224.0.0.1', false],
    ['255.255.255.255', false], ['198.18.0.1', false], ['::1', false], ['::', false], ['fe80::1', false], ['fd00:ec2::254', false],
    ['fc00::1', false], ['::ffff:127.0.0.1', false], ['::ffff:7f00:1', false], ['::ffff:169.254.169.254', false],
    ['64:ff9b::10.0.0.1', false], ['ff02::1', false], ['not an ip', false],
    ['93.184.216.34', true], ['8.8.8.8', true], ['172.32.0.1', true], ['2606:4700:4700::1111', true], ['::ffff:8.8.8.8', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('refuses a host whose address is private, and lets the operator allow private networks', async () => {
    await expect(resolveAllowed('127.0.0.1', addressPolicy(false))).rejects.toThrow(RefusedAddressError);
    await expect(resolveAllowed('[::1]', addressPolicy(false))).rejects.toThrow('[::1] resolves to a private or reserved address (::1)');
    await expect(resolveAllowed('localhost', addressPolicy(false))).rejects.toThrow(RefusedAddressError);
    expect(await resolveAllowed('127.0.0.1', addressPolicy(true))).toEqual({ address: '127.0.0.1', family: 4 });
  });
});

describe(`the API refuses a private starting url by default (${ENGINE})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 422 and queues nothing', async () => {
    const tenant = await createTenant(t.services, 'Guarded');
    await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.partner, body: { account: { domain: '127.0.0.1' } } });
    const res = await call(t.app, 'POST', '/api/v1/scans', { token: tenant.tokens.account, body: { scan: { starting_url: 'http://127.0.0.1:9/' } } });
    expect(res.status).toBe(422);
    // The owner learns which setting of the operator's lifts the refusal, and nothing more.
    expect(res.body).toEqual({ errors: [{ error: 'Starting url is not allowed: 127.0.0.1 resolves to a private or reserved address (127.0.0.1); an operator can allow private networks with SCAN_ALLOW_PRIVATE_NETWORKS=true' }] });
    const list = await call(t.app, 'GET', '/api/v1/scans', { token: tenant.tokens.account });
    expect(list.body.pagination.count).toBe(0);
  });
});

// The browser part needs no database: it runs once, with the embedded project.
(ENGINE === 'embedded' ? describeBrowser : describe.skip)('the browser behind the address guard', () => {
  let site: ScanSite;
  beforeAll(async () => {
    site = await startScanSite({ banner: false });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('refuses a redirect to a refused address on every pass, and no request reaches it', async () => {
    // The loopback site stands for the internet; 127.0.0.4 stands for a private network.
    const result = await crawlDirectly(`${site.url}/`, 50, (address) => address !== '127.0.0.4');
    const redirect = result.pages.find((page) => page.url === `${site.url}/go-internal`);
    expect(redirect).toMatchObject({ status: null, error: `127.0.0.4 resolves to a private or reserved address (127.0.0.4)` });
    expect(result.refused).toContainEqual({ url: `${site.privateTarget}/admin`, reason: '127.0.0.4 resolves to a private or reserved address (127.0.0.4)' });
    expect(site.hits.privateTarget).toEqual([]);
    expect(result.items.map((item) => item.name)).not.toContain('private_target');
    // The off-site link was never followed; without a banner there is no second pass.
    expect(site.hits.offSite).toEqual([]);
    expect(result.consent_banner).toBe(false);
    expect(result.pages.every((page) => page.pass === 'before_consent')).toBe(true);
    expect(result.items.every((item) => item.set_before_consent)).toBe(true);
  }, 60_000);

  it('fails the scan when the starting url itself is refused', async () => {
    const hitsBefore = site.hits.site.length;
    const refused = crawlDirectly(`${site.url}/`, 5, () => false);
    await expect(refused).rejects.toThrow('The starting url could not be loaded: 127.0.0.1 resolves to a private or reserved address (127.0.0.1)');
    expect(site.hits.site.slice(hitsBefore)).toEqual([]);
  }, 60_000);
});
