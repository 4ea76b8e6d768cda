import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { NEEDS_ACCOUNT, NEEDS_ADMIN } from '../../../src/http/app-errors.ts';
import { loadConfig } from '../../../src/config.ts';
import { createMailer, senderOf } from '../../../src/mail/mailer.ts';
import { newId } from '../../../src/db/ids.ts';
import { hashToken } from '../../../src/lib/token-secret.ts';
import { call, startApp } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { pageAfterTheLast } from '../../helpers/pages.ts';
import { createTenant, createUser, PASSWORD } from '../../helpers/tenants.ts';

const PUBLIC_URL = 'http://localhost:3000';
const MASKED = `${PUBLIC_URL}/invitations/********`;
const LINK = /http:\/\/localhost:3000\/invitations\/([A-Za-z0-9_-]{43})/;

const { t, tenants: [tenant, other], inbox } = fileApp({
  inbox: true,
  env: { PUBLIC_URL, RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000' },
  tenants: ['Inviting', 'Outsider'],
});

const errors = (code: number, message: string) => ({ errors: [{ code, message }] });
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });
const single = (message: string) => ({ error: { code: 400, message } });
let counter = 0;
const newEmail = (label = 'invitee') => `${label}-${++counter}@example.test`;

const invite = (token: string, body: unknown) => call(t.app, 'POST', '/api/v1/account-invitations', { token, body });
const accept = (body: unknown) => call(t.app, 'POST', '/api/v1/account-invitations/accept', { body });
const stored = (id: string) => t.services.db.selectFrom('account_invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** The secret of the link in the last email sent to this address. */
function linkSentTo(email: string): string {
  const mail = inbox.mails.filter((m) => m.to.includes(email)).at(-1);
  if (!mail) throw new Error(`no email to ${email}`);
  const match = LINK.exec(mail.text);
  if (!match) throw new Error(`no link in the email to ${email}:\n${mail.text}`);
  return match[1];
}

describe('POST /account-invitations', () => {
  it('creates an invitation (201, unwrapped create form) and emails its link', async () => {
    const res = await invite(tenant.tokens.admin, { name: 'Ada Lovelace', email: 'Ada.Lovelace@Example.test', role: 'member' });
    expect(res.status).toBe(201);
    const row = await stored(res.body.id);
    expect(res.body).toEqual({
      id: row.id,
      name: 'Ada Lovelace',
      email: 'ada.lovelace@example.test',
      role: 'member',
      invited_by_type: 'account_user',
      invited_by_id: tenant.admin.id,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      deleted_at: null,
      email_status: 'sent',
    });
    const days = (row.expires_at.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);

    const mail = inbox.mails.at(-1)!;
    expect(mail.to).toEqual(['ada.lovelace@example.test']);
    expect(mail.from).toBe('no-reply@localhost');
    expect(mail.raw).toContain(`Subject: You are invited to join ${tenant.account.name} on Consentry`);
    expect(mail.text).toContain(`${tenant.admin.name} (${tenant.admin.email}) has invited you to join ${tenant.account.name} on Consentry as a member.`);
    const secret = linkSentTo('ada.lovelace@example.test');
    // Only the SHA-256 of the secret is stored, and the secret is not the id.
    expect(row.secret_hash).toBe(hashToken(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(secret).not.toBe(row.id);
  });

  it('records an account token as the API, with no inviting user', async () => {
    const res = await invite(tenant.tokens.account, { name: 'By API', email: newEmail(), role: 'admin' });
    expect(res).toMatchObject({ status: 201, body: { role: 'admin', invited_by_type: 'API', invited_by_id: null } });
    expect(inbox.mails.at(-1)!.text).toContain(`You have been invited to join ${tenant.account.name} on Consentry as an admin.`);
    const one = await call(t.app, 'GET', `/api/v1/account-invitations/${res.body.id}`, { token: tenant.tokens.admin });
    expect(one.body.data.invited_by).toBeNull();
  });

  it('resends an open invitation for the same email: 200, same record, a new link that replaces the old one', async () => {
    const email = newEmail('resent');
    const first = await invite(tenant.tokens.admin, { name: 'First', email, role: 'member' });
    const oldSecret = linkSentTo(email);
    // At most one email an hour per address: this one went out long enough ago.
    await t.services.db.updateTable('account_invitations').set({ email_sent_at: new Date(Date.now() - 2 * 3600_000) }).where('id', '=', first.body.id).execute();
    const before = await stored(first.body.id);
    const again = await invite(tenant.tokens.account, { name: 'Second', email: email.toUpperCase(), role: 'admin' });
    expect(again.status).toBe(200);
    const after = await stored(first.body.id);
    expect(again.body).toEqual({ ...first.body, updated_at: after.updated_at.toISOString() });
    const newSecret = linkSentTo(email);
    expect(newSecret).not.toBe(oldSecret);
    expect(after.secret_hash).toBe(hashToken(newSecret));
    expect(after.expires_at.getTime()).toBeGreaterThanOrEqual(before.expires_at.getTime());
    const stale = await accept({ invitation: { token: oldSecret, name: 'X', password: 'long enough' } });
    expect(stale).toMatchObject({ status: 404, body: errors(404, 'Invitation not found') });
  });

  it('answers invalid input with 400 in the single-object form', async () => {
    const cases: [unknown, string][] = [
      [{ email: newEmail(), role: 'member' }, "Name can't be blank"],
      [{ name: '   ', email: newEmail(), role: 'member' }, "Name can't be blank"],
      [{ name: 'X', email: 'not an email', role: 'member' }, 'Email is invalid'],
      [{ name: 'X', email: newEmail(), role: 'owner' }, 'Role is not included in the list'],
      [{ name: 'X', email: newEmail(), role: 'member', extra: 'ignored' }, ''],
      [{ name: 42, email: 'nope' }, "Role can't be blank, Name is invalid, Email is invalid"],
      [[], 'Body must be a JSON object'],
      [{ invitation: { name: 'Wrapped', email: newEmail(), role: 'member' } }, "Name can't be blank, Email can't be blank, Role can't be blank"],
      [{ name: 'Member', email: tenant.member.email.toUpperCase(), role: 'member' }, 'Email is already a member of this account'],
    ];
    for (const [body, message] of cases) {
      const res = await invite(tenant.tokens.admin, body);
      if (message === '') expect(res.status, JSON.stringify(body)).toBe(201);
      else expect(res, JSON.stringify(body)).toMatchObject({ status: 400, body: single(message) });
    }
    const malformed = await invite(tenant.tokens.admin, '{"name": ');
    expect(malformed).toMatchObject({ status: 400, body: single('Request body is not valid JSON') });
  });

  it('is 403 for a non-admin member, in the array form', async () => {
    const res = await invite(tenant.tokens.member, { name: 'X', email: newEmail(), role: 'member' });
    expect(res).toMatchObject({ status: 403, body: errors(403, NEEDS_ADMIN) });
  });
});

describe('GET /account-invitations and /account-invitations/{id}', () => {
  it('answers the update form under data, with the link masked', async () => {
    const created = await invite(tenant.tokens.admin, { name: 'Shown', email: newEmail(), role: 'admin' });
    const row = await stored(created.body.id);
    const res = await call(t.app, 'GET', `/api/v1/account-invitations/${row.id}`, { token: tenant.tokens.member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: row.id,
        name: 'Shown',
        email: row.email,
        invite_url: MASKED,
        roles: { admin: true },
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
        invited_by: { id: tenant.admin.id, name: tenant.admin.name, email: tenant.admin.email },
        email_status: 'sent',
      },
    });
  });

  it('is 404 for another account\'s invitation', async () => {
    const foreign = await invite(other.tokens.admin, { name: 'Theirs', email: newEmail(), role: 'member' });
    const res = await call(t.app, 'GET', `/api/v1/account-invitations/${foreign.body.id}`, { token: tenant.tokens.admin });
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
  });

  it('lists the open invitations; include_cancelled=true lists all, each with its state', async () => {
    const listed = await createTenant(t.services, 'Listed');
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      ids.push((await invite(listed.tokens.admin, { name, email: newEmail(), role: 'member' })).body.id);
    }
    await call(t.app, 'DELETE', `/api/v1/account-invitations/${ids[1]}`, { token: listed.tokens.admin });
    await t.services.db.updateTable('account_invitations').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', ids[2]).execute();

    const open = await call(t.app, 'GET', '/api/v1/account-invitations', { token: listed.tokens.member });
    expect(open.status).toBe(200);
    const first = await stored(ids[0]);
    expect(open.body).toEqual({
      pagination: { prev_url: '/api/v1/account-invitations?page=', next_url: '/api/v1/account-invitations?page=', count: 2, page: 1, prev: null, next: null },
      data: [
        {
          id: first.id, name: 'One', email: first.email, invite_url: MASKED, roles: { admin: false },
          created_at: first.created_at.toISOString(), updated_at: first.updated_at.toISOString(),
          invited_by: { id: listed.admin.id, name: listed.admin.name, email: listed.admin.email },
          email_status: 'sent', status: 'open', expires_at: first.expires_at.toISOString(),
        },
        expect.objectContaining({ id: ids[2], status: 'expired' }),
      ],
    });
    const all = await call(t.app, 'GET', '/api/v1/account-invitations', { token: listed.tokens.admin, query: { include_cancelled: 'true' } });
    expect(all.body.pagination.count).toBe(3);
    expect(all.body.data.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
      [ids[0], 'open'], [ids[1], 'cancelled'], [ids[2], 'expired'],
    ]);
    const bad = await call(t.app, 'GET', '/api/v1/account-invitations', { token: listed.tokens.admin, query: { include_cancelled: 'maybe' } });
    expect(bad).toMatchObject({ status: 400, body: errors(400, 'include_cancelled is invalid') });
  });

  it('pages with limit/page, keeping the other parameters in the links', async () => {
    const paged = await createTenant(t.services, 'Paged invitations');
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push((await invite(paged.tokens.admin, { name: `Guest ${i}`, email: newEmail(), role: 'member' })).body.id);
    }
    const page2 = await call(t.app, 'GET', '/api/v1/account-invitations', {
      token: paged.tokens.admin, query: { limit: '2', page: '2', include_cancelled: 'true' },
    });
    expect(page2.body.pagination).toEqual({
      prev_url: '/api/v1/account-invitations?page=1&limit=2&include_cancelled=true',
      next_url: '/api/v1/account-invitations?page=3&limit=2&include_cancelled=true',
      count: 5, page: 2, prev: 1, next: 3,
    });
    expect(page2.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(2, 4));
    const past = await call(t.app, 'GET', '/api/v1/account-invitations', { token: paged.tokens.admin, query: { limit: '2', page: '4' } });
    expect(past.body).toEqual(pageAfterTheLast('/api/v1/account-invitations', 4, 2, 5));
    const desc = await call(t.app, 'GET', '/api/v1/account-invitations', { token: paged.tokens.admin, query: { order: 'desc', limit: '2' } });
    expect(desc.body.data.map((i: { id: string }) => i.id)).toEqual([ids[4], ids[3]]);
  });
});

describe('PUT /account-invitations/{id}', () => {
  it('renames an open invitation; email and role stay', async () => {
    const created = await invite(tenant.tokens.admin, { name: 'Old name', email: newEmail(), role: 'member' });
    const url = `/api/v1/account-invitations/${created.body.id}`;
    const res = await call(t.app, 'PUT', url, {
      token: tenant.tokens.account, body: { account_invitation: { name: '  New name ', email: 'other@example.test', role: 'admin' } },
    });
    expect(res.status).toBe(200);
    const row = await stored(created.body.id);
    expect(res.body).toEqual({
      data: {
        id: row.id, name: 'New name', email: created.body.email, invite_url: MASKED, roles: { admin: false },
        created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
        invited_by: { id: tenant.admin.id, name: tenant.admin.name, email: tenant.admin.email },
        email_status: 'sent',
      },
    });
    expect(row).toMatchObject({ name: 'New name', email: created.body.email, role: 'member' });
  });

  it('answers 422 for a blank name, 403 for a member, 404 for another account', async () => {
    const created = await invite(tenant.tokens.admin, { name: 'Kept', email: newEmail(), role: 'member' });
    const url = `/api/v1/account-invitations/${created.body.id}`;
    const blank = await call(t.app, 'PUT', url, { token: tenant.tokens.admin, body: { account_invitation: { name: '  ' } } });
    expect(blank).toMatchObject({ status: 422, body: invalid("Name can't be blank") });
    const empty = await call(t.app, 'PUT', url, { token: tenant.tokens.admin, body: { account_invitation: {} } });
    expect(empty).toMatchObject({ status: 422, body: invalid("Name can't be blank") });
    const member = await call(t.app, 'PUT', url, { token: tenant.tokens.member, body: { account_invitation: { name: 'X' } } });
    expect(member).toMatchObject({ status: 403, body: errors(403, NEEDS_ADMIN) });
    const foreign = await call(t.app, 'PUT', url, { token: other.tokens.admin, body: { account_invitation: { name: 'X' } } });
    expect(foreign).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    expect((await stored(created.body.id)).name).toBe('Kept');
  });
});

describe('DELETE /account-invitations/{id}', () => {
  it('cancels: sets deleted_at, and the invitation is 404 for PUT and DELETE and its link is dead', async () => {
    const email = newEmail('cancelled');
    const created = await invite(tenant.tokens.admin, { name: 'Cancelled', email, role: 'member' });
    const secret = linkSentTo(email);
    const url = `/api/v1/account-invitations/${created.body.id}`;
    const foreign = await call(t.app, 'DELETE', url, { token: other.tokens.admin });
    expect(foreign).toMatchObject({ status: 404, body: errors(404, 'Record not found') });

    const res = await call(t.app, 'DELETE', url, { token: tenant.tokens.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Account invitation was cancelled' });
    expect((await stored(created.body.id)).deleted_at).toBeInstanceOf(Date);

    expect(await call(t.app, 'DELETE', url, { token: tenant.tokens.admin })).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    const put = await call(t.app, 'PUT', url, { token: tenant.tokens.admin, body: { account_invitation: { name: 'X' } } });
    expect(put).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    expect((await call(t.app, 'GET', url, { token: tenant.tokens.admin })).status).toBe(200);
    const dead = await accept({ invitation: { token: secret, name: 'X', password: 'long enough' } });
    expect(dead).toMatchObject({ status: 404, body: errors(404, 'Invitation not found') });
    // A new invitation for the same email is a new record.
    const fresh = await invite(tenant.tokens.admin, { name: 'Cancelled', email, role: 'member' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(created.body.id);
  });
});

describe('POST /account-invitations/accept', () => {
  it('end to end: the emailed link makes a new user a member with the invited role, logged in', async () => {
    const email = newEmail('newcomer');
    const created = await invite(tenant.tokens.admin, { name: 'Newcomer', email, role: 'member' });
    const secret = linkSentTo(email);

    const res = await accept({ invitation: { token: secret, name: 'New Comer', password: 'a long password' } });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^csu_[0-9A-Za-z]{43}$/);
    const user = await t.services.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    const membership = await t.services.db.selectFrom('account_users').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(res.body.data).toEqual({
      id: membership.id,
      roles: { admin: false },
      created_at: membership.created_at.toISOString(),
      updated_at: membership.updated_at.toISOString(),
      user: { id: user.id, name: 'New Comer', email },
      account: { id: tenant.account.id, name: tenant.account.name },
    });

    // The token works on the account, as a member: reads yes, writes no.
    const token = res.body.token as string;
    const members = await call(t.app, 'GET', '/api/v1/account-users', { token });
    expect(members.status).toBe(200);
    expect(members.body.data.map((m: { user: { email: string } }) => m.user.email)).toContain(email);
    const write = await invite(token, { name: 'X', email: newEmail(), role: 'member' });
    expect(write).toMatchObject({ status: 403, body: errors(403, NEEDS_ADMIN) });
    const login = await call(t.app, 'POST', '/api/v1/auth', { body: { email, password: 'a long password' } });
    expect(login.status).toBe(200);

    // The invitation is used up: off the open list, accepted in the full one, 404 for changes.
    expect((await stored(created.body.id)).accepted_at).toBeInstanceOf(Date);
    const open = await call(t.app, 'GET', '/api/v1/account-invitations', { token: tenant.tokens.admin, query: { limit: '100' } });
    expect(open.body.data.map((i: { id: string }) => i.id)).not.toContain(created.body.id);
    const all = await call(t.app, 'GET', '/api/v1/account-invitations', { token: tenant.tokens.admin, query: { limit: '100', include_cancelled: 'true' } });
    expect(all.body.data.find((i: { id: string }) => i.id === created.body.id).status).toBe('accepted');
    const url = `/api/v1/account-invitations/${created.body.id}`;
    expect((await call(t.app, 'DELETE', url, { token: tenant.tokens.admin })).status).toBe(404);
    expect((await call(t.app, 'PUT', url, { token: tenant.tokens.admin, body: { account_invitation: { name: 'X' } } })).status).toBe(404);
    const twice = await accept({ invitation: { token: secret, name: 'Again', password: 'a long password' } });
    expect(twice).toMatchObject({ status: 422, body: invalid('Invitation has already been accepted') });
    // Now a member, the email cannot be invited again.
    expect(await invite(tenant.tokens.admin, { name: 'X', email, role: 'admin' })).toMatchObject({
      status: 400, body: single('Email is already a member of this account'),
    });
  });

  it('lets a partner bring the first admin into an account it made, through an account token', async () => {
    const made = await call(t.app, 'POST', '/api/v1/accounts', {
      token: tenant.tokens.partner,
      body: { account: { name: 'Customer shop', domain: 'customer-shop.example.com', group_id: tenant.group.id } },
    });
    expect(made.status).toBe(201);
    const email = newEmail('first-admin');
    // A partner token is no account's: account routes answer it 401, whichever account it names.
    const own = await call(t.app, 'POST', '/api/v1/account-invitations', {
      token: tenant.tokens.partner, query: { account_id: made.body.id }, body: { name: 'First Admin', email, role: 'admin' },
    });
    expect(own).toMatchObject({ status: 401, body: errors(401, NEEDS_ACCOUNT) });

    const accountToken = await call(t.app, 'POST', '/api/v1/api-tokens', {
      token: tenant.tokens.partner, body: { name: 'onboarding', account_id: made.body.id },
    });
    expect(accountToken).toMatchObject({ status: 201, body: { data: { token_type: 'account', account_id: made.body.id } } });
    const invitation = await invite(accountToken.body.token, { name: 'First Admin', email, role: 'admin' });
    expect(invitation).toMatchObject({ status: 201, body: { role: 'admin', invited_by_type: 'API', invited_by_id: null } });

    const joined = await accept({ invitation: { token: linkSentTo(email), password: 'a long password' } });
    expect(joined.status).toBe(200);
    expect(joined.body.data).toMatchObject({ roles: { admin: true }, account: { id: made.body.id, name: 'Customer shop' } });
  });

  it('end to end with the admin role: the new user can make writes at once', async () => {
    const email = newEmail('new-admin');
    await invite(tenant.tokens.admin, { name: 'New Admin', email, role: 'admin' });
    const res = await accept({ invitation: { token: linkSentTo(email), password: 'a long password' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ roles: { admin: true }, user: { name: 'New Admin', email } });
    const write = await invite(res.body.token, { name: 'Invited by the new admin', email: newEmail(), role: 'member' });
    expect(write).toMatchObject({ status: 201, body: { invited_by_type: 'account_user', invited_by_id: res.body.data.user.id } });
  });

  it('lets an existing user join with their own password, and only with it', async () => {
    const { user, token } = await createUser(t.services, 'Existing person');
    // A member of another account, whose memberships the guard has just cached.
    await t.services.db.insertInto('account_users')
      .values({ id: newId(), account_id: other.account.id, user_id: user.id, admin: false }).execute();
    expect((await call(t.app, 'GET', '/api/v1/account-users', { token })).body.data[0].account.id).toBe(other.account.id);
    await invite(tenant.tokens.admin, { name: 'Someone else', email: user.email, role: 'admin' });
    const secret = linkSentTo(user.email);
    const wrong = await accept({ invitation: { token: secret, name: 'Renamed', password: 'not my password' } });
    expect(wrong).toMatchObject({ status: 422, body: invalid('Password is invalid') });
    const res = await accept({ invitation: { token: secret, name: 'Renamed', password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ roles: { admin: true }, user: { id: user.id, name: user.name, email: user.email } });
    const users = await t.services.db.selectFrom('users').select('id').where('email', '=', user.email).execute();
    expect(users).toEqual([{ id: user.id }]);
    // Now of two accounts, the user's tokens must name one; on this one they are an admin at once.
    expect(await call(t.app, 'GET', '/api/v1/account-users', { token })).toMatchObject({ status: 401, body: errors(401, NEEDS_ACCOUNT) });
    const write = await call(t.app, 'POST', '/api/v1/account-invitations', {
      token, query: { account_id: tenant.account.id }, body: { name: 'Next', email: newEmail(), role: 'member' },
    });
    expect(write.status).toBe(201);
  });

  it('for someone who became a member meanwhile, uses the invitation up and keeps their role', async () => {
    const { user } = await createUser(t.services, 'Joined meanwhile');
    await invite(tenant.tokens.admin, { name: 'Joined', email: user.email, role: 'admin' });
    const secret = linkSentTo(user.email);
    await t.services.db.insertInto('account_users')
      .values({ id: newId(), account_id: tenant.account.id, user_id: user.id, admin: false }).execute();
    const res = await accept({ invitation: { token: secret, password: PASSWORD } });
    expect(res).toMatchObject({ status: 200, body: { data: { roles: { admin: false }, user: { id: user.id } } } });
    const twice = await accept({ invitation: { token: secret, password: PASSWORD } });
    expect(twice).toMatchObject({ status: 422, body: invalid('Invitation has already been accepted') });
  });

  it('refuses unknown, expired and malformed links and short passwords', async () => {
    const unknown = await accept({ invitation: { token: 'A'.repeat(43), name: 'X', password: 'long enough' } });
    expect(unknown).toMatchObject({ status: 404, body: errors(404, 'Invitation not found') });

    const email = newEmail('late');
    const created = await invite(tenant.tokens.admin, { name: 'Late', email, role: 'member' });
    const secret = linkSentTo(email);
    const short = await accept({ invitation: { token: secret, name: 'X', password: 'short' } });
    expect(short).toMatchObject({ status: 422, body: invalid('Password is too short (minimum is 8 characters)') });
    await t.services.db.updateTable('account_invitations')
      .set({ expires_at: new Date(Date.now() - 1000), email_sent_at: new Date(Date.now() - 8 * 24 * 3600_000) })
      .where('id', '=', created.body.id).execute();
    const late = await accept({ invitation: { token: secret, name: 'X', password: 'long enough' } });
    expect(late).toMatchObject({ status: 422, body: invalid('Invitation has expired; ask for a new one') });
    expect(await t.services.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);

    // Resending an expired invitation makes it usable again, with a new link.
    expect((await invite(tenant.tokens.admin, { name: 'Late', email, role: 'member' })).status).toBe(200);
    const revived = await accept({ invitation: { token: linkSentTo(email), password: 'long enough' } });
    expect(revived.status).toBe(200);

    const missing = await accept({ invitation: { token: secret } });
    expect(missing).toMatchObject({ status: 422, body: invalid("Password can't be blank") });
    const unwrapped = await accept({ token: secret, password: 'long enough' });
    expect(unwrapped).toMatchObject({ status: 422, body: invalid("Invitation can't be blank") });
  });
});

describe('email delivery', () => {
  it('keeps the invitation (201) when the SMTP server cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await startApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    try {
      const owner = await createTenant(down.services, 'Mail down');
      const res = await call(down.app, 'POST', '/api/v1/account-invitations', {
        token: owner.tokens.admin, body: { name: 'Patient', email: 'patient@example.test', role: 'member' },
      });
      expect(res.status).toBe(201);
      expect(res.body.email_status).toBe('failed');
      const row = await down.services.db.selectFrom('account_invitations').selectAll().where('id', '=', res.body.id).executeTakeFirst();
      expect(row).toMatchObject({ email: 'patient@example.test', deleted_at: null, accepted_at: null });
    } finally {
      await down.close();
    }
  });

  it('without SMTP logs an email\'s envelope, never its text', async () => {
    const mailer = createMailer(loadConfig({ PUBLIC_URL: 'https://consent.example.com' }));
    expect(mailer.via).toBe('log');
    const lines: { obj: unknown; msg: string }[] = [];
    const log = { info: (obj: unknown, msg: string) => lines.push({ obj, msg }) } as never;
    const message = { to: 'a@example.test', subject: 'Hello', text: 'https://consent.example.com/invitations/abc' };
    await mailer.send(message, log);
    expect(lines).toEqual([{
      obj: { mail: { from: 'Consentry <no-reply@consent.example.com>', to: message.to, subject: message.subject } },
      msg: 'SMTP_URL is not set: email not sent (its text is not logged)',
    }]);
    mailer.close();
  });

  it('sends from no-reply at the public host, or from the address SMTP_URL names', () => {
    expect(senderOf({ smtpUrl: undefined, publicUrl: 'https://consent.example.com' })).toBe('Consentry <no-reply@consent.example.com>');
    expect(senderOf({ smtpUrl: 'smtp://mail.example.com:587?from=team%40example.com', publicUrl: 'http://localhost:3000' }))
      .toBe('team@example.com');
  });
});
