import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config.ts';
import { VendorListError } from '../../../src/modules/tcf/vendor-list.ts';
import { readVendorListSource, VendorLists } from '../../../src/modules/tcf/vendor-lists.ts';
import { startApp } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const FIXTURES = new URL('../../fixtures/tcf/', import.meta.url).pathname;
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

// Started with the file alone: version 100, no translation.
const { t } = fileApp({ env: { TCF_GVL_FILE: join(FIXTURES, 'vendor-list.json') } });

/** A web server answering the given files by path; counts the requests. */
let server: Server;
let base = '';
const served = new Map<string, { status: number; body: string }>();
const requests: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const file = served.get(req.url ?? '') ?? { status: 404, body: 'not found' };
    res.writeHead(file.status, { 'content-type': 'application/json' }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const rows = () => t.services.db.selectFrom('tcf_vendor_lists').select(['version', 'translations', 'updated_at']).orderBy('version').execute();

describe('the Global Vendor List', () => {
  it('is loaded from TCF_GVL_FILE at start and stored once', async () => {
    const current = await t.services.vendorLists.current();
    expect(current).toMatchObject({ version: 100, tcfPolicyVersion: 5, translations: {} });
    expect([...current!.vendorIds].sort((a, b) => a - b)).toEqual([1, 2, 4, 8, 10, 25]);
    const before = await rows();
    expect(before.map((row) => row.version)).toEqual([100]);
    // The same file again writes nothing.
    expect(await t.services.vendorLists.loadFile(join(FIXTURES, 'vendor-list.json'))).toEqual({ version: 100, stored: false });
    expect(await rows()).toEqual(before);
  });

  it('takes a folder: its translations join the stored version, once', async () => {
    expect(await t.services.vendorLists.loadFile(FIXTURES)).toEqual({ version: 100, stored: true });
    const [row] = await rows();
    expect(Object.keys(row.translations)).toEqual(['de']);
    expect((await t.services.vendorLists.current())!.translations.de.purposes).toEqual(JSON.parse(read('purposes-de.json')).purposes);
    expect(await t.services.vendorLists.loadFile(FIXTURES)).toEqual({ version: 100, stored: false });
  });

  it('refuses broken files, naming what is wrong', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gvl-'));
    try {
      const list = JSON.parse(read('vendor-list.json'));
      const cases: [unknown, RegExp][] = [
        ['not json', /is not JSON/],
        [{ ...list, gvlSpecificationVersion: 2 }, /gvlSpecificationVersion must be 3/],
        [{ ...list, vendorListVersion: 'x' }, /vendorListVersion must be an integer/],
        [{ ...list, vendors: { 5: { ...list.vendors['1'] } } }, /vendors\.5 must have the id 5/],
        [{ ...list, vendors: { 1: { ...list.vendors['1'], purposes: ['a'] } } }, /vendors\.1\.purposes must be a list of ids/],
        [{ ...list, purposes: { 1: { id: 2, name: 'x' } } }, /purposes\.1 must have the id 1/],
      ];
      for (const [content, message] of cases) {
        writeFileSync(join(dir, 'vendor-list.json'), typeof content === 'string' ? content : JSON.stringify(content));
        await expect(readVendorListSource(join(dir, 'vendor-list.json'))).rejects.toThrow(message);
      }
      await expect(readVendorListSource(join(dir, 'vendor-list.json'))).rejects.toBeInstanceOf(VendorListError);
      // A folder without vendor-list.json.
      rmSync(join(dir, 'vendor-list.json'));
      await expect(readVendorListSource(dir)).rejects.toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops the start when TCF_GVL_FILE is wrong', async () => {
    await expect(startApp({ env: { TCF_GVL_FILE: join(FIXTURES, 'missing.json') } })).rejects.toThrow(ConfigError);
    await expect(startApp({ env: { TCF_GVL_FILE: join(FIXTURES, 'purposes-de.json') } })).rejects.toThrow(/^TCF_GVL_FILE \(.*purposes-de\.json\): vendorListVersion must be an integer/);
  });

  it('is fetched from TCF_GVL_URL with its translations; a newer version takes over, here and on another instance', async () => {
    const other = new VendorLists(t.services.db, { checkIntervalMs: 0 });
    expect((await other.current())!.version).toBe(100);
    served.set('/v3/vendor-list.json', { status: 200, body: read('vendor-list-v2.json') });
    served.set('/v3/purposes-de.json', { status: 200, body: read('purposes-de.json') });
    requests.length = 0;
    await t.services.vendorLists.refreshFrom(`${base}/v3/vendor-list.json`, ['de', 'fr'], 5000);
    expect(requests).toEqual(['/v3/vendor-list.json', '/v3/purposes-de.json', '/v3/purposes-fr.json']);
    const current = await t.services.vendorLists.current();
    expect(current).toMatchObject({ version: 101 });
    expect(current!.vendorIds.has(30)).toBe(true);
    expect(Object.keys(current!.translations)).toEqual(['de']);
    expect((await rows()).map((row) => row.version)).toEqual([100, 101]);
    // Another instance reads the newer version from the database.
    expect((await other.current())!.version).toBe(101);
  });

  it('keeps the stored list when a fetch fails, and logs it', async () => {
    const errors: string[] = [];
    const lists = new VendorLists(t.services.db, { checkIntervalMs: 0, log: { error: (_details, message) => errors.push(message) } });
    served.set('/broken/vendor-list.json', { status: 200, body: '{"vendors": 1' });
    served.set('/down/vendor-list.json', { status: 503, body: '' });
    served.set('/large/vendor-list.json', { status: 200, body: ' '.repeat(33 * 1024 * 1024) });
    for (const path of ['/broken', '/down', '/missing', '/large']) await lists.refreshFrom(`${base}${path}/vendor-list.json`, [], 5000);
    // Nothing listens there.
    await lists.refreshFrom('http://127.0.0.1:9/vendor-list.json', [], 2000);
    expect(errors).toHaveLength(5);
    expect(errors.every((message) => message.startsWith('could not fetch the TCF vendor list'))).toBe(true);
    expect((await lists.current())!.version).toBe(101);
    expect((await rows()).map((row) => row.version)).toEqual([100, 101]);
  });

  it('serves the newer version to a TCF account, its new vendor selectable', async () => {
    const { createTenant } = await import('../../helpers/tenants.ts');
    const tenant = await createTenant(t.services, 'Refresh');
    const { call } = await import('../../helpers/app.ts');
    const res = await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { tcf: { enabled: true, cmp_id: 300, vendor_ids: [1, 30] } } } });
    expect(res.status).toBe(200);
    const file = await t.app.inject({ method: 'GET', url: `/widget/${tenant.account.id}/tcf-vendors.json` });
    expect(file.json()).toMatchObject({ vendorListVersion: 101 });
    expect(Object.keys(file.json().vendors)).toEqual(['1', '30']);
  });
});
