/**
 * A consent says what a visitor agreed to on a web page: its url is an http(s) address, and its
 * lists agree with its accept_type; an `all` consent records every category it covers (the published ones),
 * a `necessary` one every published category it refuses.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { insertCategory, insertUsualCategories } from '../../helpers/records.ts';

const { t, tenants: [tenant] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Input'] });
let necessary: { id: string }, analytics: { id: string }, marketing: { id: string }, hidden: { id: string };
beforeAll(async () => {
  ({ necessary, analytics, marketing } = await insertUsualCategories(t.services, tenant.account.id));
  // Not yet published: the banner does not show it, so accepting all does not accept it.
  hidden = await insertCategory(t.services, tenant.account.id, { name: 'Experiments', published: false });
});

const viaApi = (consent: unknown) => call(t.app, 'POST', '/api/v1/consents', { token: tenant.tokens.account, body: { consent } });
const viaWidget = (consent: unknown) => call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: { consent } });
const invalid = (...messages: string[]) => ({ status: 422, body: { errors: messages.map((error) => ({ error })) } });

describe('a consent through the API', () => {
  it('refuses services of more characters in all than the limit, within the body limit', async () => {
    // 80 keys of 10 names of 20 characters: 16,000 characters of names, plus the keys'.
    const map = (salt: string) => Object.fromEntries(Array.from({ length: 40 }, (_, key) =>
      [`${salt}-vendor-${key}`, Array.from({ length: 10 }, (_, i) => `${salt}-name-${key}-${i}`.padEnd(20, 'x'))]));
    const res = await viaApi({ session_id: 's', user_preferences: { accept_type: 'custom', accepted_services: map('a'), rejected_services: map('r') } });
    expect(res).toMatchObject(invalid('Accepted services and rejected services are too large together (maximum is 1000 names and 16384 characters of keys and names in all)'));
  });
});

describe.each([['the API', viaApi], ['the widget', viaWidget]] as const)('a consent through %s', (_, send) => {
  it.each(['javascript:alert(1)', 'data:text/html,hi', 'ftp://files.example.com/', 'not a url'])('refuses the url %s', async (url) => {
    const res = await send({ session_id: 's', url, user_preferences: { accept_type: 'necessary' } });
    expect(res).toMatchObject(invalid('Url must be an http or https URL'));
  });

  it('accepts http and https urls, and none', async () => {
    for (const url of ['https://shop.example.com/cart?x=1', 'http://shop.example.com/', null, undefined]) {
      expect((await send({ session_id: 's', url, user_preferences: { accept_type: 'necessary' } })).status).toBe(201);
    }
  });

  it('refuses necessary with a category that is not required', async () => {
    const res = await send({ session_id: 's', user_preferences: { accept_type: 'necessary', accepted_categories: [necessary.id, analytics.id] } });
    expect(res).toMatchObject(invalid('Accepted categories can only include required categories when accept_type is necessary'));
    const fine = await send({ session_id: 's', user_preferences: { accept_type: 'necessary', accepted_categories: [necessary.id], rejected_categories: [analytics.id] } });
    expect(fine.status).toBe(201);
  });

  it('takes category ids in capitals as the same ids', async () => {
    const res = await send({ session_id: 'capitals', user_preferences: { accept_type: 'custom', accepted_categories: [necessary.id.toUpperCase(), analytics.id], rejected_categories: [marketing.id.toUpperCase()] } });
    expect(res.status).toBe(201);
    const row = await t.services.db.selectFrom('consent_records').select(['accepted_categories', 'rejected_categories']).where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect([...row.accepted_categories!].sort()).toEqual([necessary.id, analytics.id].sort());
    expect(row.rejected_categories).toEqual([marketing.id]);
  });

  it('names the field, not a key of the client\'s, and a problem of several items once', async () => {
    const hostile = await send({ session_id: 's', user_preferences: { accept_type: 'custom', accepted_services: { '<img src=x onerror=alert(1)>': 'c' } } });
    expect(hostile).toMatchObject(invalid('Accepted services is invalid'));
    const plain = await send({ session_id: 's', user_preferences: { accept_type: 'custom', accepted_services: { you_were_hacked: 5 } } });
    expect(plain).toMatchObject(invalid('Accepted services is invalid'));
    // A service's name is as long as a value may be: 255 characters, and not empty.
    const withService = (name: string) => send({ session_id: 's', user_preferences: { accept_type: 'custom', rejected_services: { [name]: [] } } });
    expect(await withService('s'.repeat(256))).toMatchObject(invalid('Rejected services has a key that is too long (maximum is 255 characters)'));
    expect(await withService('')).toMatchObject(invalid('Rejected services has a blank key'));
    expect((await send({ session_id: 's', user_preferences: { accept_type: 'custom', accepted_services: { ['s'.repeat(255)]: ['_ga'] } } })).status).toBe(201);
    const twice = await send({ session_id: 's', user_preferences: { accept_type: 'custom', accepted_categories: [1, {}] } });
    expect(twice).toMatchObject(invalid('Accepted categories is invalid'));
  });

  it('refuses services past their limit in all, across keys and both maps, naming it', async () => {
    const names = (count: number, prefix = '') => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
    const tooLarge = invalid('Accepted services and rejected services are too large together (maximum is 1000 names and 16384 characters of keys and names in all)');
    // 1,000 names in all are taken (200 a key at most); one more, in either map, is not.
    const atLimit = { accepted_services: { a: names(200), b: names(200), c: names(100) }, rejected_services: { d: names(200), e: names(200), f: names(100) } };
    expect((await send({ session_id: 's', user_preferences: { accept_type: 'custom', ...atLimit } })).status).toBe(201);
    const past = { ...atLimit, rejected_services: { ...atLimit.rejected_services, g: ['x'] } };
    expect(await send({ session_id: 's', user_preferences: { accept_type: 'custom', ...past } })).toMatchObject(tooLarge);
  });

  it('refuses all with a rejected category', async () => {
    const res = await send({ session_id: 's', user_preferences: { accept_type: 'all', accepted_categories: [necessary.id], rejected_categories: [marketing.id] } });
    expect(res).toMatchObject(invalid('Rejected categories must be empty when accept_type is all'));
  });

  it('stores every published category of the account as accepted for all, not one the banner does not show', async () => {
    const res = await send({ session_id: 'everything', user_preferences: { accept_type: 'all', accepted_categories: [analytics.id] } });
    expect(res.status).toBe(201);
    const row = await t.services.db.selectFrom('consent_records').select(['accepted_categories', 'rejected_categories']).where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect([...row.accepted_categories!].sort()).toEqual([necessary.id, analytics.id, marketing.id].sort());
    expect(row.accepted_categories).not.toContain(hidden.id);
    expect(row.rejected_categories).toBeNull();
  });

  it('stores the published required categories as accepted and the other published ones as rejected for necessary', async () => {
    const res = await send({ session_id: 'only-necessary', user_preferences: { accept_type: 'necessary' } });
    expect(res.status).toBe(201);
    const row = await t.services.db.selectFrom('consent_records').select(['accepted_categories', 'rejected_categories']).where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect(row.accepted_categories).toEqual([necessary.id]);
    expect([...row.rejected_categories!].sort()).toEqual([analytics.id, marketing.id].sort());
  });
});
