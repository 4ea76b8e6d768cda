import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GroupRow } from '../../../src/db/schema.ts';
import { insertGroup } from '../../../src/modules/groups/groups.repository.ts';
import { insertPartner } from '../../../src/modules/partners/partners.repository.ts';
import { issueToken } from '../../../src/modules/tokens/tokens.service.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [a, b] } = fileApp({ tenants: ['Alpha', 'Beta'] });

const api = (method: string, url: string, token?: string, body?: unknown) => call(t.app, method, url, { token, body });
const errors = (code: number, message: string) => ({ errors: [{ code, message }] });
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The contract's group, written out from a stored row. */
const groupJson = (row: GroupRow) => ({
  id: row.id,
  name: row.name,
  external_id: row.external_id,
  partner: row.partner_id,
  max_pageviews_per_month: row.max_pageviews_per_month,
  max_unique_visitors_per_month: row.max_unique_visitors_per_month,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

const stored = (id: string) => t.services.db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
const groupsOf = (partnerId: string) =>
  t.services.db.selectFrom('groups').selectAll().where('partner_id', '=', partnerId).execute();

/** A partner of its own, so that counts and pages are exact. */
async function freshPartner(name: string) {
  const partner = await insertPartner(t.services.db, name);
  const { token } = await issueToken(t.services.db, { type: 'partner', kind: 'api', partnerId: partner.id });
  return { partner, token };
}

async function createGroup(token: string, group: Record<string, unknown>) {
  const res = await api('POST', '/api/v1/groups', token, { group });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as ReturnType<typeof groupJson>;
}

describe('who may call /groups', () => {
  const routes = (id: string): [string, string, unknown?][] => [
    ['GET', '/api/v1/groups'],
    ['POST', '/api/v1/groups', { group: { name: 'Intruder' } }],
    ['GET', `/api/v1/groups/${id}`],
    ['PUT', `/api/v1/groups/${id}`, { group: { name: 'Intruder' } }],
    ['DELETE', `/api/v1/groups/${id}`],
  ];

  it('refuses user and account tokens with 401 and changes nothing', async () => {
    const before = await groupsOf(a.partner.id);
    for (const who of ['admin', 'member', 'account'] as const) {
      for (const [method, url, body] of routes(a.group.id)) {
        const res = await api(method, url, a.tokens[who], body);
        expect([who, method, url, res.status, res.body]).toEqual([who, method, url, 401, errors(401, 'API key must belong to a partner')]);
      }
    }
    expect(await groupsOf(a.partner.id)).toEqual(before);
  });

  it('refuses a request without a token, or with an unknown one', async () => {
    for (const token of [undefined, 'csp_doesnotexist']) {
      for (const [method, url, body] of routes(a.group.id)) {
        const res = await api(method, url, token, body);
        expect([method, url, res.status, res.body]).toEqual([method, url, 401, errors(401, 'Invalid API Key')]);
      }
    }
  });

  it("answers 404 for another partner's group and leaves it alone", async () => {
    const url = `/api/v1/groups/${b.group.id}`;
    for (const [method, body] of [['GET'], ['PUT', { group: { name: 'Stolen' } }], ['DELETE']] as const) {
      const res = await api(method, url, a.tokens.partner, body);
      expect([method, res.status, res.body]).toEqual([method, 404, errors(404, 'Record not found')]);
    }
    expect(await stored(b.group.id)).toEqual(b.group);
  });

  it('answers 404 for an id that does not exist or is not an id', async () => {
    for (const id of [randomUUID(), 'not-an-id']) {
      const res = await api('GET', `/api/v1/groups/${id}`, a.tokens.partner);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(errors(404, 'Record not found'));
    }
  });
});

describe('GET /groups', () => {
  it("lists the partner's own groups only, in the pagination envelope", async () => {
    const res = await api('GET', '/api/v1/groups', b.tokens.partner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pagination: { prev_url: '/api/v1/groups?page=', next_url: '/api/v1/groups?page=', count: 1, page: 1, prev: null, next: null },
      data: [groupJson(b.group)],
    });
  });

  it('answers an empty list to a partner without groups', async () => {
    const { token } = await freshPartner('Empty partner');
    const res = await api('GET', '/api/v1/groups', token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pagination: { prev_url: '/api/v1/groups?page=', next_url: '/api/v1/groups?page=', count: 0, page: 1, prev: null, next: null },
      data: [],
    });
  });

  it("finds a group by its external_id, among the partner's own only", async () => {
    const { partner, token } = await freshPartner('Finder');
    const wanted = await insertGroup(t.services.db, partner.id, { name: 'Wanted', external_id: 'crm-42' });
    await insertGroup(t.services.db, partner.id, { name: 'Other', external_id: 'crm-43' });
    const { partner: stranger } = await freshPartner('Stranger');
    await insertGroup(t.services.db, stranger.id, { name: 'Foreign', external_id: 'crm-42' });
    const res = await api('GET', '/api/v1/groups?external_id=crm-42', token);
    expect(res.status).toBe(200);
    expect([res.body.data.map((group: { id: string }) => group.id), res.body.pagination.count]).toEqual([[wanted.id], 1]);
    expect((await api('GET', '/api/v1/groups?external_id=crm-4', token)).body.data).toEqual([]);
  });
});

describe('POST /groups', () => {
  it('creates a group with every field and answers it unwrapped with 201', async () => {
    const { partner, token } = await freshPartner('Creator');
    const res = await api('POST', '/api/v1/groups', token, {
      group: { name: '  Shops  ', external_id: ' crm-17 ', max_pageviews_per_month: 50_000, max_unique_visitors_per_month: 0 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Shops',
      external_id: 'crm-17',
      partner: partner.id,
      max_pageviews_per_month: 50_000,
      max_unique_visitors_per_month: 0,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const rows = await groupsOf(partner.id);
    expect(rows.map(groupJson)).toEqual([res.body]);
  });

  it('leaves the optional fields null when only a name is sent', async () => {
    const group = await createGroup(a.tokens.partner, { name: 'Bare' });
    expect(group).toMatchObject({ name: 'Bare', external_id: null, max_pageviews_per_month: null, max_unique_visitors_per_month: null });
    expect((await stored(group.id))!.external_id).toBeNull();
  });

  it.each([
    ['an empty name', { name: '' }],
    ['a whitespace name', { name: ' \t\n ' }],
    ['no name', { external_id: 'x' }],
  ])('refuses %s with 422 and stores nothing', async (_, group) => {
    const before = await groupsOf(a.partner.id);
    const res = await api('POST', '/api/v1/groups', a.tokens.partner, { group });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid("Name can't be blank"));
    expect(await groupsOf(a.partner.id)).toEqual(before);
  });

  it("refuses an external id the partner already uses, even padded with spaces; another partner may reuse it", async () => {
    await createGroup(a.tokens.partner, { name: 'First', external_id: 'ext-1' });
    for (const external_id of ['ext-1', '  ext-1 ']) {
      const res = await api('POST', '/api/v1/groups', a.tokens.partner, { group: { name: 'Second', external_id } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(invalid('External id has already been taken'));
    }
    expect((await groupsOf(a.partner.id)).filter((g) => g.external_id === 'ext-1')).toHaveLength(1);

    const other = await createGroup(b.tokens.partner, { name: 'Elsewhere', external_id: 'ext-1' });
    expect(other).toMatchObject({ external_id: 'ext-1', partner: b.partner.id });
  });

  it('treats a blank external id as none, so any number of groups may leave it blank', async () => {
    const first = await createGroup(a.tokens.partner, { name: 'No ext 1', external_id: '  ' });
    const second = await createGroup(a.tokens.partner, { name: 'No ext 2', external_id: null });
    expect([first.external_id, second.external_id]).toEqual([null, null]);
  });

  it('reports every problem of a request at once', async () => {
    await createGroup(a.tokens.partner, { name: 'Holder', external_id: 'ext-2' });
    const res = await api('POST', '/api/v1/groups', a.tokens.partner, { group: { name: ' ', external_id: 'ext-2' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid("Name can't be blank", 'External id has already been taken'));
  });

  it.each([
    ['a number as name', { group: { name: 5 } }, 'Name is invalid'],
    ['a list as name', { group: { name: ['x'] } }, 'Name is invalid'],
    ['a text as group', { group: 'Shops' }, 'Group is invalid'],
    ['no group', { name: 'Shops' }, "Group can't be blank"],
    ['a name too long', { group: { name: 'x'.repeat(256) } }, 'Name is too long (maximum is 255 characters)'],
  ])('refuses %s with 422', async (_, body, message) => {
    const res = await api('POST', '/api/v1/groups', a.tokens.partner, body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid(message));
  });

  it.each([
    ['a text as quota', { max_pageviews_per_month: 'many' }, 'Max pageviews per month is invalid'],
    ['a negative quota', { max_unique_visitors_per_month: -1 }, 'Max unique visitors per month must be greater than or equal to 0'],
    ['a number as external id', { external_id: 7 }, 'External id is invalid'],
  ])('refuses %s with exactly one 422 sentence', async (_, fields, message) => {
    const res = await api('POST', '/api/v1/groups', a.tokens.partner, { group: { name: 'Typed', ...fields } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid(message));
  });

  it.each([
    [{ max_pageviews_per_month: 'many' }, 'Max pageviews per month is invalid'],
    [{ max_unique_visitors_per_month: -1 }, 'Max unique visitors per month must be greater than or equal to 0'],
    [{ max_pageviews_per_month: 1.5 }, 'Max pageviews per month is invalid'],
    [{ external_id: 7 }, 'External id is invalid'],
  ])('refuses a wrong type or range in %j with 422 and stores nothing', async (fields, message) => {
    const before = await groupsOf(a.partner.id);
    const res = await api('POST', '/api/v1/groups', a.tokens.partner, { group: { name: 'Typed', ...fields } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toContainEqual({ error: message });
    expect(await groupsOf(a.partner.id)).toEqual(before);
  });
});

describe('GET /groups/{id}', () => {
  it('answers the group unwrapped', async () => {
    const res = await api('GET', `/api/v1/groups/${a.group.id}`, a.tokens.partner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(groupJson(a.group));
  });
});

describe('PUT /groups/{id}', () => {
  it('changes only the fields sent, and moves updated_at', async () => {
    const created = await createGroup(a.tokens.partner, { name: 'Before', external_id: 'put-1', max_pageviews_per_month: 10 });
    const res = await api('PUT', `/api/v1/groups/${created.id}`, a.tokens.partner, { group: { name: ' After ' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, name: 'After', updated_at: expect.stringMatching(ISO) });
    expect(res.body.updated_at >= created.updated_at).toBe(true);
    expect(groupJson((await stored(created.id))!)).toEqual(res.body);
  });

  it('sets and clears the optional fields', async () => {
    const created = await createGroup(a.tokens.partner, { name: 'Quota', external_id: 'put-2' });
    const set = await api('PUT', `/api/v1/groups/${created.id}`, a.tokens.partner, {
      group: { max_pageviews_per_month: 1000, max_unique_visitors_per_month: 200, external_id: 'put-2b' },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ name: 'Quota', external_id: 'put-2b', max_pageviews_per_month: 1000, max_unique_visitors_per_month: 200 });

    const cleared = await api('PUT', `/api/v1/groups/${created.id}`, a.tokens.partner, {
      group: { max_pageviews_per_month: null, external_id: '' },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ external_id: null, max_pageviews_per_month: null, max_unique_visitors_per_month: 200 });
    expect(await stored(created.id)).toMatchObject({ external_id: null, max_pageviews_per_month: null, max_unique_visitors_per_month: 200 });
  });

  it("keeps the group's own external id, and refuses one of another of the partner's groups", async () => {
    const mine = await createGroup(a.tokens.partner, { name: 'Mine', external_id: 'put-3' });
    await createGroup(a.tokens.partner, { name: 'Theirs', external_id: 'put-4' });
    await createGroup(b.tokens.partner, { name: 'Other partner', external_id: 'put-5' });

    const same = await api('PUT', `/api/v1/groups/${mine.id}`, a.tokens.partner, { group: { external_id: 'put-3', name: 'Mine too' } });
    expect(same.status).toBe(200);

    const taken = await api('PUT', `/api/v1/groups/${mine.id}`, a.tokens.partner, { group: { external_id: 'put-4' } });
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual(invalid('External id has already been taken'));
    expect((await stored(mine.id))!.external_id).toBe('put-3');

    const elsewhere = await api('PUT', `/api/v1/groups/${mine.id}`, a.tokens.partner, { group: { external_id: 'put-5' } });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.external_id).toBe('put-5');
  });

  it('refuses a blank name and keeps the stored one', async () => {
    const created = await createGroup(a.tokens.partner, { name: 'Kept' });
    for (const name of ['', '   ']) {
      const res = await api('PUT', `/api/v1/groups/${created.id}`, a.tokens.partner, { group: { name } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(invalid("Name can't be blank"));
    }
    expect((await stored(created.id))!.name).toBe('Kept');
  });

  it('accepts an empty change', async () => {
    const created = await createGroup(a.tokens.partner, { name: 'Untouched', external_id: 'put-6' });
    const res = await api('PUT', `/api/v1/groups/${created.id}`, a.tokens.partner, { group: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, updated_at: expect.stringMatching(ISO) });
  });
});

describe('DELETE /groups/{id}', () => {
  it('deletes an empty group', async () => {
    const created = await createGroup(a.tokens.partner, { name: 'Doomed' });
    const res = await api('DELETE', `/api/v1/groups/${created.id}`, a.tokens.partner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Group was deleted successfully' });
    expect(await stored(created.id)).toBeUndefined();

    const again = await api('GET', `/api/v1/groups/${created.id}`, a.tokens.partner);
    expect(again.status).toBe(404);
    const twice = await api('DELETE', `/api/v1/groups/${created.id}`, a.tokens.partner);
    expect(twice.status).toBe(404);
    expect(twice.body).toEqual(errors(404, 'Record not found'));
  });

  it('refuses with 422 while the group holds accounts, and deletes it once they are gone', async () => {
    const group = await createGroup(a.tokens.partner, { name: 'Occupied' });
    const account = await api('POST', '/api/v1/accounts', a.tokens.partner, {
      account: { name: 'Tenant site', domain: 'occupied.example.com', group_id: group.id },
    });
    expect(account.status).toBe(201);

    const refused = await api('DELETE', `/api/v1/groups/${group.id}`, a.tokens.partner);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(invalid('Group still holds accounts; move or delete them first'));
    expect(await stored(group.id)).toBeDefined();

    expect((await api('DELETE', `/api/v1/accounts/${account.body.id}`, a.tokens.partner)).status).toBe(200);
    const res = await api('DELETE', `/api/v1/groups/${group.id}`, a.tokens.partner);
    expect(res.status).toBe(200);
    expect(await stored(group.id)).toBeUndefined();
  });
});

describe('pagination of GET /groups', () => {
  const TOTAL = 43;
  let token: string;
  /** Every group of the partner in the order the contract promises: created_at, then id. */
  let ordered: string[];

  beforeAll(async () => {
    const fresh = await freshPartner('Many groups');
    token = fresh.token;
    const earlier = new Date('2026-01-01T00:00:00.000Z');
    const same = new Date('2026-02-01T00:00:00.000Z');
    // Random (not time-ordered) ids: only an explicit tie-break on id keeps the order stable.
    const rows = Array.from({ length: TOTAL }, (_, i) => ({
      id: randomUUID(),
      partner_id: fresh.partner.id,
      name: `Group ${i}`,
      created_at: i < 3 ? earlier : same,
      updated_at: same,
    }));
    await t.services.db.insertInto('groups').values(rows).execute();
    const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1);
    ordered = [...rows.slice(0, 3).sort(byId), ...rows.slice(3).sort(byId)].map((row) => row.id);
  });

  const page = (query: string) => api('GET', `/api/v1/groups${query}`, token);
  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((group) => group.id);

  it('serves 20 per page from page 1 by default', async () => {
    const res = await page('');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({
      prev_url: '/api/v1/groups?page=', next_url: '/api/v1/groups?page=2', count: TOTAL, page: 1, prev: null, next: 2,
    });
    expect(ids(res)).toEqual(ordered.slice(0, 20));
  });

  it('serves page 2 with links both ways, carrying per_page along', async () => {
    const res = await page('?page=2&per_page=10');
    expect(res.body.pagination).toEqual({
      prev_url: '/api/v1/groups?page=1&per_page=10',
      next_url: '/api/v1/groups?page=3&per_page=10',
      count: TOTAL, page: 2, prev: 1, next: 3,
    });
    expect(ids(res)).toEqual(ordered.slice(10, 20));
  });

  it('serves a short last page without a next page', async () => {
    const res = await page('?per_page=10&page=5');
    expect(res.body.pagination).toEqual({
      prev_url: '/api/v1/groups?page=4&per_page=10', next_url: '/api/v1/groups?page=', count: TOTAL, page: 5, prev: 4, next: null,
    });
    expect(ids(res)).toEqual(ordered.slice(40));
  });

  it('has no next page when the last page is exactly full', async () => {
    const res = await page(`?per_page=${TOTAL - 3}&page=1`);
    expect(res.body.pagination.next).toBe(2);
    const exact = await page('?per_page=43');
    expect(exact.body.pagination).toMatchObject({ next: null, next_url: '/api/v1/groups?page=', count: TOTAL });
    expect(ids(exact)).toEqual(ordered);
  });

  it('answers an empty page past the end with the true count', async () => {
    const res = await page('?page=9&per_page=10');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pagination: { prev_url: '/api/v1/groups?page=8&per_page=10', next_url: '/api/v1/groups?page=', count: TOTAL, page: 9, prev: 8, next: null },
      data: [],
    });
  });

  it('never repeats nor skips a group when following next_url to the end', async () => {
    const seen: string[] = [];
    let url: string | null = '/api/v1/groups?per_page=7';
    let pages = 0;
    while (url) {
      const res = await api('GET', url, token);
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      pages += 1;
      url = res.body.pagination.next === null ? null : res.body.pagination.next_url;
    }
    expect(pages).toBe(Math.ceil(TOTAL / 7));
    expect(seen).toEqual(ordered);
  });

  it('walks every per_page the same way', async () => {
    for (const perPage of [1, 5, 50]) {
      const seen: string[] = [];
      for (let n = 1; n <= Math.ceil(TOTAL / perPage); n++) seen.push(...ids(await page(`?page=${n}&per_page=${perPage}`)));
      expect([perPage, seen]).toEqual([perPage, ordered]);
    }
  });
});
