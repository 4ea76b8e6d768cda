/** Names in any script get a working slug, and a slug problem the client did not cause names the name. */
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [tenant] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Slugs'] });

const create = (category: Record<string, unknown>) => call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category } });

describe('slugs made from names', () => {
  it.each([['Аналитика', 'analitika'], ['分析', 'fen-xi'], ['Ελληνικά', 'ellinika'], ['Marketing für Straße', 'marketing-fur-strasse']])('%s → %s', async (name, slug) => {
    const res = await create({ name });
    expect(res).toMatchObject({ status: 201, body: { data: { name, slug } } });
  });

  it('blames the name, never a slug that was not sent', async () => {
    expect(await create({ name: '🍪🍪' })).toMatchObject({ status: 422, body: { errors: [{ error: 'Name has no letter or digit to make a slug from; send a slug' }] } });
    expect((await create({ name: '🍪🍪', slug: 'cookies' })).status).toBe(201);
    const again = await create({ name: 'Аналитика' });
    expect(again).toMatchObject({ status: 422, body: { errors: [{ error: 'Name has already been taken (its slug analitika is in use; send another slug)' }] } });
    expect((await create({ name: 'Аналитика', slug: 'analitika-2' })).status).toBe(201);
  });
});
