/**
 * Invitation emails report what became of them (`email_status`), go to one address at most once an
 * hour, are retried with backoff when they fail, can be resent by the inviter, and without SMTP the
 * link goes back to the admin who made the invitation and never into the log.
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../bench/processes.ts';
import { retryDueInvitationEmails, retryDelayMs } from '../../../src/modules/account-invitations/invitation-mail.ts';
import { hashToken } from '../../../src/lib/token-secret.ts';
import { call, ENGINE, startApp, type TestApp } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { builtEntry } from '../../helpers/built-entries.ts';
import { freshDataDir } from '../../helpers/embedded-template.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const PUBLIC_URL = 'http://localhost:3000';
const LINK = /http:\/\/localhost:3000\/invitations\/([A-Za-z0-9_-]{43})/;
const silent = { info() {}, warn() {}, error() {} } as never;

let counter = 0;
const newEmail = (label: string) => `${label}-${++counter}@example.test`;
const invite = (t: TestApp, token: string, email: string) =>
  call(t.app, 'POST', '/api/v1/account-invitations', { token, body: { name: 'Invitee', email, role: 'member' } });
const stored = (t: TestApp, id: string) =>
  t.services.db.selectFrom('account_invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('with SMTP', () => {
  const { t, tenants: [tenant], inbox } = fileApp({ inbox: true, env: { PUBLIC_URL }, tenants: ['Hourly'] });
  const mailsTo = (email: string) => inbox.mails.filter((m) => m.to.includes(email));

  it('sends one email per address per hour however often the address is invited; the first link keeps working', async () => {
    const email = newEmail('often');
    const first = await invite(t, tenant.tokens.admin, email);
    expect(first.status).toBe(201);
    expect(first.body.email_status).toBe('sent');
    expect(first.body.invite_url).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const again = await invite(t, tenant.tokens.account, email.toUpperCase());
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.body.id);
    }
    expect(mailsTo(email)).toHaveLength(1);
    const secret = LINK.exec(mailsTo(email)[0].text)![1];
    expect((await stored(t, first.body.id)).secret_hash).toBe(hashToken(secret));

    const resend = await call(t.app, 'POST', `/api/v1/account-invitations/${first.body.id}/resend`, { token: tenant.tokens.admin });
    expect(resend).toMatchObject({ status: 429, body: { errors: [{ code: 429, message: 'Too many requests. Please retry later.' }] } });
    expect(Number(resend.headers['retry-after'])).toBeGreaterThan(3500);
    expect(Number(resend.headers['retry-after'])).toBeLessThanOrEqual(3600);

    // An hour later the inviter may resend: a new link, which replaces the first.
    await t.services.db.updateTable('account_invitations').set({ email_sent_at: new Date(Date.now() - 3601_000) }).where('id', '=', first.body.id).execute();
    const later = await call(t.app, 'POST', `/api/v1/account-invitations/${first.body.id}/resend`, { token: tenant.tokens.admin });
    expect(later).toMatchObject({ status: 200, body: { id: first.body.id, email_status: 'sent' } });
    expect(mailsTo(email)).toHaveLength(2);
    expect(LINK.exec(mailsTo(email)[1].text)![1]).not.toBe(secret);
  });

  it('resend is for admins of the account, and 404 for a cancelled or foreign invitation', async () => {
    const other = await createTenant(t.services, 'Other');
    const created = await invite(t, tenant.tokens.admin, newEmail('guarded'));
    const url = `/api/v1/account-invitations/${created.body.id}/resend`;
    expect((await call(t.app, 'POST', url, { token: tenant.tokens.member })).status).toBe(403);
    expect((await call(t.app, 'POST', url, { token: other.tokens.admin })).status).toBe(404);
    await call(t.app, 'DELETE', `/api/v1/account-invitations/${created.body.id}`, { token: tenant.tokens.admin });
    expect((await call(t.app, 'POST', url, { token: tenant.tokens.admin })).status).toBe(404);
  });
});

describe('when the SMTP server refuses', () => {
  let failing = true;
  let server: SMTPServer;
  const received: string[] = [];
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        if (failing) callback(Object.assign(new Error('Mailbox unavailable, try later'), { responseCode: 450 }));
        else callback();
      },
      onData(stream, _session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push(raw.replace(/=\r?\n/g, ''));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.server.address() as AddressInfo;
    t = await startApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, PUBLIC_URL } });
    tenant = await createTenant(t.services, 'Flaky');
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('shows the failure, retries with backoff, and the retried link works', async () => {
    const email = newEmail('retried');
    const created = await invite(t, tenant.tokens.admin, email);
    expect(created).toMatchObject({ status: 201, body: { email_status: 'failed' } });
    const shown = await call(t.app, 'GET', `/api/v1/account-invitations/${created.body.id}`, { token: tenant.tokens.admin });
    expect(shown.body.data.email_status).toBe('failed');
    const row = await stored(t, created.body.id);
    expect(row.email_attempts).toBe(1);
    expect(row.email_retry_at!.getTime() - row.updated_at.getTime()).toBeGreaterThanOrEqual(retryDelayMs(1) - 1000);

    // Not yet due: nothing is tried.
    expect(await retryDueInvitationEmails(t.services, silent, new Date())).toBe(0);
    // Due, still refused: the next try waits longer.
    const due = new Date(row.email_retry_at!.getTime() + 1000);
    expect(await retryDueInvitationEmails(t.services, silent, due)).toBe(0);
    const second = await stored(t, created.body.id);
    expect(second).toMatchObject({ email_status: 'failed', email_attempts: 2 });
    expect(second.email_retry_at!.getTime()).toBeGreaterThanOrEqual(Date.now() + retryDelayMs(2) - 60_000);

    failing = false;
    expect(await retryDueInvitationEmails(t.services, silent, new Date(second.email_retry_at!.getTime() + 1000))).toBe(1);
    expect(await stored(t, created.body.id)).toMatchObject({ email_status: 'sent', email_attempts: 3, email_retry_at: null });
    const mail = received.find((raw) => raw.includes(email))!;
    const secret = LINK.exec(mail)![1];
    const accepted = await call(t.app, 'POST', '/api/v1/account-invitations/accept', { body: { invitation: { token: secret, password: 'long enough' } } });
    expect(accepted.status).toBe(200);
    failing = true;
  });

  it('lets the inviter resend at once after a failure', async () => {
    const created = await invite(t, tenant.tokens.admin, newEmail('resent'));
    expect(created.body.email_status).toBe('failed');
    failing = false;
    const resent = await call(t.app, 'POST', `/api/v1/account-invitations/${created.body.id}/resend`, { token: tenant.tokens.admin });
    expect(resent).toMatchObject({ status: 200, body: { email_status: 'sent' } });
    failing = true;
  });
});

describe('without SMTP', () => {
  it('returns the working link to the admin who made the invitation, and says not_configured', async () => {
    const t = await startApp({ env: { PUBLIC_URL } });
    try {
      const tenant = await createTenant(t.services, 'No mail');
      const created = await invite(t, tenant.tokens.admin, newEmail('handed'));
      expect(created).toMatchObject({ status: 201, body: { email_status: 'not_configured' } });
      const secret = LINK.exec(created.body.invite_url)![1];
      const shown = await call(t.app, 'GET', `/api/v1/account-invitations/${created.body.id}`, { token: tenant.tokens.admin });
      expect(shown.body.data).toMatchObject({ email_status: 'not_configured', invite_url: `${PUBLIC_URL}/invitations/********` });
      const accepted = await call(t.app, 'POST', '/api/v1/account-invitations/accept', { body: { invitation: { token: secret, password: 'long enough' } } });
      expect(accepted.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  // The real server's log (stdout), at info: the invitation is logged, its link is not.
  it.runIf(ENGINE === 'embedded')('never writes the link into the log', async () => {
    const dataDir = freshDataDir();
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info', PUBLIC_URL };
    try {
      const demo = spawnSync(process.execPath, [...builtEntry('cli'), 'demo'], { env, encoding: 'utf8' });
      expect(demo.status).toBe(0);
      const { tokens } = JSON.parse(demo.stdout);
      const port = await freePort();
      const server = spawn(process.execPath, builtEntry('server'), { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
      let log = '';
      server.stdout.on('data', (chunk) => (log += chunk));
      const exited = new Promise((resolve) => server.once('exit', resolve));
      try {
        const base = `http://127.0.0.1:${port}`;
        for (let i = 0; i < 200 && !log.includes('Consentry is serving'); i++) await new Promise((r) => setTimeout(r, 100));
        const res = await fetch(`${base}/api/v1/account-invitations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens.account}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Logged', email: 'logged@example.test', role: 'member' }),
        });
        const body = await res.json();
        expect(res.status).toBe(201);
        const secret = LINK.exec(body.invite_url)![1];
        for (let i = 0; i < 50 && !log.includes(body.id); i++) await new Promise((r) => setTimeout(r, 100));
        expect(log).toContain(body.id);
        expect(log).not.toContain(secret);
      } finally {
        server.kill('SIGTERM');
        await exited;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
