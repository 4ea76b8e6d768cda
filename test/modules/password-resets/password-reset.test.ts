import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { MailMessage, Mailer } from '../../../src/mail/mailer.ts';
import { sendResetLink } from '../../../src/modules/password-resets/password-resets.service.ts';
import { RESET_QUEUE_MAX, ResetQueue } from '../../../src/modules/password-resets/reset-queue.ts';
import { hashToken } from '../../../src/lib/token-secret.ts';
import { call, startApp } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createUser, PASSWORD } from '../../helpers/tenants.ts';

const { t, inbox } = fileApp({ inbox: true, env: { AUTH_RATE_LIMIT_PER_MIN: '1000', PUBLIC_URL: 'https://consent.example.test' } });

const request = (email: string) => call(t.app, 'POST', '/api/v1/password/reset', { body: { email } });
const reset = (token: string, password: string, confirmation = password) =>
  call(t.app, 'PUT', '/api/v1/password/reset', { body: { token, password, password_confirmation: confirmation } });
const login = (email: string, password: string) => call(t.app, 'POST', '/api/v1/auth', { body: { email, password } });

/** Waits for the next email to `to` (sending happens after the answer) and returns the link's token. */
async function mailedToken(to: string, already: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mails = inbox.mails.filter((mail) => mail.to.includes(to));
    if (mails.length > already) {
      const link = /https:\/\/consent\.example\.test\/reset-password\/([A-Za-z0-9_-]+)/.exec(mails.at(-1)!.text);
      if (!link) throw new Error(`no reset link in: ${mails.at(-1)!.text}`);
      return link[1];
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no email reached ${to}`);
}

describe('POST /password/reset', () => {
  it('answers 202 alike for a known and an unknown email, and mails only the known one', async () => {
    const { user } = await createUser(t.services, 'Known');
    // The unknown email first: requests are handled in turn, so once the known one's email arrives
    // the unknown one has been handled too.
    const unknown = await request('nobody-here@example.test');
    const known = await request(user.email.toUpperCase());
    expect(known.status).toBe(202);
    expect(unknown).toEqual({ ...unknown, status: 202, body: known.body });
    expect(known.body).toEqual({ message: 'If that email belongs to a user, a link to reset the password has been sent to it' });
    const token = await mailedToken(user.email, 0);
    expect(inbox.mails.some((mail) => mail.to.includes('nobody-here@example.test'))).toBe(false);
    const rows = await t.services.db.selectFrom('password_resets').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(hashToken(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    const minutes = (rows[0].expires_at.getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(59);
    expect(minutes).toBeLessThanOrEqual(60);
  });

  it('answers before it looks the email up, and mails the link once the database answers', async () => {
    const { user } = await createUser(t.services, 'Patient');
    const before = inbox.mails.length;
    // While the users table is locked no lookup can run: an answer that waited for one would
    // never come before the lock is released (after 10 s at most here).
    const answer = await t.services.db.transaction().execute(async (trx) => {
      await sql`lock table users, password_resets in access exclusive mode`.execute(trx);
      const waited = new Promise<'waited for the database'>((resolve) => setTimeout(() => resolve('waited for the database'), 10_000));
      return Promise.race([request(user.email), waited]);
    });
    expect(answer).toMatchObject({ status: 202 });
    expect(inbox.mails.length).toBe(before);
    await mailedToken(user.email, 0);
  });

  it('keeps at most RESET_QUEUE_MAX requests waiting, and says so in the log past it', async () => {
    const warnings: string[] = [];
    const log = Object.assign(Object.create(t.app.log), { warn: (message: string) => void warnings.push(message) });
    const queue = new ResetQueue(t.services);
    await t.services.db.transaction().execute(async (trx) => {
      await sql`lock table users in access exclusive mode`.execute(trx);
      // The first is taken at once and waits for the lock; RESET_QUEUE_MAX more wait behind it.
      for (let i = 0; i < RESET_QUEUE_MAX + 3; i++) queue.add(`flood-${i}@example.test`, log);
    });
    expect(warnings).toEqual(Array(2).fill('password reset requests arrive faster than they are handled: this one is dropped'));
    await queue.close();
  });

  it('refuses a body without an email (422) and one that is not JSON (415)', async () => {
    expect(await call(t.app, 'POST', '/api/v1/password/reset', { body: {} })).toMatchObject({
      status: 422, body: { errors: [{ error: "Email can't be blank" }] },
    });
    const text = await call(t.app, 'POST', '/api/v1/password/reset', { body: 'email=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
  });
});

describe('PUT /password/reset', () => {
  it('sets the new password once, logs out every session and keeps named API tokens', async () => {
    const { user, token: apiToken } = await createUser(t.services, 'Resetter');
    const session = (await login(user.email, PASSWORD)).body.token as string;
    await request(user.email);
    const token = await mailedToken(user.email, 0);

    expect(await reset(token, 'a brand new secret')).toEqual(expect.objectContaining({ status: 200, body: { success: true } }));
    expect((await login(user.email, PASSWORD)).status).toBe(401);
    expect((await login(user.email, 'a brand new secret')).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/me', { token: session })).status).toBe(401);
    expect((await call(t.app, 'GET', '/api/v1/me', { token: apiToken })).status).toBe(200);

    expect(await reset(token, 'yet another secret')).toMatchObject({
      status: 422, body: { errors: [{ error: 'Token is invalid or has already been used' }] },
    });
    expect((await login(user.email, 'a brand new secret')).status).toBe(200);
  });

  it('says what is wrong with the password, and leaves the link usable', async () => {
    const { user } = await createUser(t.services, 'Careful');
    await request(user.email);
    const token = await mailedToken(user.email, 0);
    expect(await reset(token, 'short')).toMatchObject({
      status: 422, body: { errors: [{ error: 'Password is too short (minimum is 8 characters)' }] },
    });
    expect(await reset(token, 'long enough one', 'long enough two')).toMatchObject({
      status: 422, body: { errors: [{ error: "Password confirmation doesn't match Password" }] },
    });
    expect((await reset(token, 'long enough one')).status).toBe(200);
  });

  it('refuses an unknown token, an expired one and one replaced by a newer link', async () => {
    expect(await reset('not-a-token', 'whatever123')).toMatchObject({
      status: 422, body: { errors: [{ error: 'Token is invalid or has already been used' }] },
    });
    const { user } = await createUser(t.services, 'Slow');
    await request(user.email);
    const first = await mailedToken(user.email, 0);
    await request(user.email);
    const second = await mailedToken(user.email, 1);
    expect(second).not.toBe(first);
    expect((await reset(first, 'whatever123')).body).toEqual({ errors: [{ error: 'Token is invalid or has already been used' }] });

    await t.services.db.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000) })
      .where('token_hash', '=', hashToken(second)).execute();
    expect(await reset(second, 'whatever123', 'other')).toMatchObject({
      status: 422,
      body: { errors: [{ error: 'Token has expired; ask for a new link' }, { error: "Password confirmation doesn't match Password" }] },
    });
    expect((await login(user.email, PASSWORD)).status).toBe(200);
  });

  it('lets exactly one of two simultaneous uses of a link through', async () => {
    const { user } = await createUser(t.services, 'Racer');
    await request(user.email);
    const token = await mailedToken(user.email, 0);
    const answers = await Promise.all([reset(token, 'first password'), reset(token, 'second password')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422]);
  });
});

describe('without SMTP', () => {
  it('writes the email to the log with the secret masked', async () => {
    const logged: MailMessage[] = [];
    const logMailer: Mailer = { via: 'log', async send(message) { logged.push(message); }, close() {} };
    const { user } = await createUser(t.services, 'Logged');
    await sendResetLink({ ...t.services, mailer: logMailer }, t.app.log, user.email);
    expect(logged).toHaveLength(1);
    expect(logged[0].text).toContain('https://consent.example.test/reset-password/********\n');
    const row = await t.services.db.selectFrom('password_resets').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.token_hash).not.toBe(hashToken('********'));
  });
});

describe('throttling', () => {
  it('counts both routes against the client IP like POST /auth', async () => {
    const tight = await startApp({ env: { AUTH_RATE_LIMIT_PER_MIN: '2' } });
    try {
      const post = () => call(tight.app, 'POST', '/api/v1/password/reset', { body: { email: 'a@example.test' } });
      expect((await post()).status).toBe(202);
      expect((await call(tight.app, 'PUT', '/api/v1/password/reset', { body: { token: 'x', password: 'whatever1', password_confirmation: 'whatever1' } })).status).toBe(422);
      const limited = await post();
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
    } finally {
      await tight.close();
    }
  });
});
