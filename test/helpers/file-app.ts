import { afterAll, beforeAll } from 'vitest';
import { freePort } from '../../bench/processes.ts';
import { startApp, type TestApp, type TestAppOptions } from './app.ts';
import { startInbox, type Inbox } from './inbox.ts';
import { createTenant, type Tenant } from './tenants.ts';

export interface FileApp extends TestApp {
  /** Where the app listens (`http://127.0.0.1:PORT`, its PUBLIC_URL too) when started with `listen`, else ''. */
  url: string;
}

export interface FileAppOptions<Labels extends readonly string[]> extends TestAppOptions {
  /** A tenant (see createTenant) for each label, made in this order. */
  tenants?: Labels;
  /** Listen on a free loopback port, for a browser or a child process to reach the app. */
  listen?: boolean;
  /** Send mail to an SMTP inbox of the file's own (SMTP_URL). */
  inbox?: boolean;
}

export interface FileAppParts<Labels extends readonly string[]> {
  t: FileApp;
  tenants: { [K in keyof Labels]: Tenant };
  /** The mail the app sent, when started with `inbox`. */
  inbox: Inbox;
}

/**
 * The app that the tests of a file (or of the describe block it is called in) share: started in a
 * beforeAll with its tenants, closed in an afterAll. The objects it returns are empty until that
 * beforeAll has run, then hold the app, the tenants and the inbox: read them inside tests and
 * hooks, never at the top of the file.
 */
export function fileApp<const Labels extends readonly string[] = []>(options: FileAppOptions<Labels> = {}): FileAppParts<Labels> {
  const { tenants: labels = [], listen = false, inbox: withInbox = false, ...appOptions } = options;
  const t = {} as FileApp;
  const tenants = labels.map(() => ({}) as Tenant);
  const inbox = {} as Inbox;
  beforeAll(async () => {
    const env: Record<string, string> = {};
    if (withInbox) env.SMTP_URL = Object.assign(inbox, await startInbox()).url;
    const port = listen ? await freePort() : 0;
    const url = listen ? `http://127.0.0.1:${port}` : '';
    if (listen) env.PUBLIC_URL = url;
    Object.assign(t, await startApp({ ...appOptions, env: { ...env, ...appOptions.env } }), { url });
    if (listen) await t.app.listen({ port, host: '127.0.0.1' });
    for (const [i, label] of labels.entries()) Object.assign(tenants[i], await createTenant(t.services, label));
  });
  afterAll(async () => {
    await t.close?.();
    await inbox.close?.();
  });
  return { t, tenants: tenants as FileAppParts<Labels>['tenants'], inbox };
}
