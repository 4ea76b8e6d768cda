import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { RETRIED_UNDER_CI, describeBrowser, newVisitor, reportRetries } from '../../helpers/browser.ts';
import { declarationAccount } from '../../helpers/declaration-account.ts';

/**
 * Embedded content through the real script and server: a shop page with a YouTube frame (a service of
 * the account's, in Marketing), a Vimeo one (in Analytics) and a map of a service the account does
 * not list, gated by `data-category`; the frames' pages are the shop's own, which counts their loads.
 * The embedded project only (vitest.config.ts): the routes under it are tested on both engines.
 */
describeBrowser('placeholders of embedded content in a browser', RETRIED_UNDER_CI, () => {
  reportRetries();
  const loads: string[] = [];
  const { t, tenants: [tenant], browser, shop } = bannerShop(['Embeds'], (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname.startsWith('/embed/')) {
      loads.push(url.pathname.slice('/embed/'.length));
      response.end('<!doctype html><title>embedded</title><p>playing</p>');
      return;
    }
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${t.url}/widget/${tenant.account.id}.js"></script></head><body><main><h1>Videos</h1>
<iframe data-src="/embed/youtube" data-service="youtube" title="Our shop on YouTube" width="560" height="315"></iframe>
<iframe data-src="/embed/vimeo" data-service="vimeo" title="Our shop on Vimeo"></iframe>
<iframe data-src="/embed/map" data-service="openmaps" data-category="marketing" title="Where we are"></iframe>
</main></body></html>`);
  });
  const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  let ids: Awaited<ReturnType<typeof declarationAccount>>;

  beforeAll(async () => {
    await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['localhost']) }).where('id', '=', tenant.account.id).execute();
    ids = await declarationAccount(t.app, tenant);
  });

  const placeholder = (page: Page, title: string) => page.getByRole('group', { name: title });
  const frameSrc = (page: Page, title: string) => page.locator(`iframe[title="${title}"]`).getAttribute('src');
  const consentsOf = async (session: string) =>
    ((await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account })).body.data as { session_id: string; user_preferences: { accepted_categories: string[] } }[])
      .filter((consent) => consent.session_id === session);
  async function visit(page: Page): Promise<void> {
    await page.goto(shop.url);
    await placeholder(page, 'Our shop on YouTube').waitFor();
  }

  it('shows an accessible placeholder before consent, fetching nothing of the service; "Load once" loads it and records nothing', async () => {
    const { context, page, errors } = await newVisitor(browser);
    loads.length = 0;
    await visit(page);
    const youtube = placeholder(page, 'Our shop on YouTube');
    expect(await youtube.textContent()).toContain('This content is provided by YouTube, which may set cookies and collect data about you.');
    expect(await youtube.getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).toBe('https://policies.google.com/privacy');
    // "Always allow" says what it turns on.
    const always = youtube.getByRole('button', { name: 'Always allow' });
    expect(await always.getAttribute('aria-describedby')).toBeTruthy();
    expect(await page.locator(`#${await always.getAttribute('aria-describedby')}`).textContent()).toBe('"Always allow" turns on Marketing on this site.');
    // The frame's size, and the frame itself hidden.
    expect(await youtube.evaluate((box) => [box.style.width, box.style.minHeight])).toEqual(['560px', '315px']);
    expect(await page.locator('iframe[title="Our shop on YouTube"]').isVisible()).toBe(false);
    expect(await placeholder(page, 'Our shop on Vimeo').isVisible()).toBe(true);
    expect(await placeholder(page, 'Where we are').textContent()).toContain('provided by openmaps');
    expect(await frameSrc(page, 'Our shop on YouTube')).toBeNull();
    expect(loads).toEqual([]);

    await youtube.getByRole('button', { name: 'Load once' }).click();
    await expect.poll(() => loads).toEqual(['youtube']);
    expect(await frameSrc(page, 'Our shop on YouTube')).toBe('/embed/youtube');
    expect(await page.locator('iframe[title="Our shop on YouTube"]').isVisible()).toBe(true);
    expect(await placeholder(page, 'Our shop on YouTube').count()).toBe(0);
    // Only that frame, and no choice made or recorded: the banner still asks.
    expect(await placeholder(page, 'Where we are').isVisible()).toBe(true);
    expect(await page.evaluate(() => window.Consentry!.getConsent())).toBeNull();
    expect(await page.locator('#cc-main .cm').isVisible()).toBe(true);
    expect((await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account })).body.data).toEqual([]);
    // Once: the next page asks again.
    await visit(page);
    expect(await frameSrc(page, 'Our shop on YouTube')).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('"Always allow" loads the frame and every one of its category, records the choice, and holds on the next page', async () => {
    const { context, page, errors } = await newVisitor(browser);
    loads.length = 0;
    await visit(page);
    await placeholder(page, 'Our shop on YouTube').getByRole('button', { name: 'Always allow' }).click();
    // YouTube and the map are Marketing; Vimeo (Analytics) still waits.
    await expect.poll(() => [...loads].sort()).toEqual(['map', 'youtube']);
    expect(await placeholder(page, 'Our shop on Vimeo').isVisible()).toBe(true);
    // The loaded frames shown in their placeholders' place.
    expect(await placeholder(page, 'Where we are').count()).toBe(0);
    expect(await page.locator('iframe[title="Where we are"]').isVisible()).toBe(true);
    await expect.poll(() => page.evaluate(() => window.Consentry!.getConsent()?.consent_id)).toBeTruthy();
    const sessionId = await page.evaluate(() => window.Consentry!.getConsent()!.session_id);
    const [consent] = await consentsOf(sessionId);
    expect(consent.user_preferences.accepted_categories.sort()).toEqual([ids.necessary.id, ids.marketing.id].sort());
    // The banner fades out (the library's transition): on a loaded machine the consent may be recorded sooner.
    await expect.poll(() => page.locator('#cc-main .cm').isVisible()).toBe(false);

    loads.length = 0;
    await page.goto(shop.url);
    await expect.poll(() => [...loads].sort()).toEqual(['map', 'youtube']);
    expect(await placeholder(page, 'Our shop on YouTube').count()).toBe(0);
    expect(await placeholder(page, 'Our shop on Vimeo').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('gives a frame added after load its placeholder; accepting all in the banner loads every frame', async () => {
    const { context, page, errors } = await newVisitor(browser);
    loads.length = 0;
    await visit(page);
    await page.evaluate(() => {
      const frame = document.createElement('iframe');
      frame.setAttribute('data-src', '/embed/later');
      frame.setAttribute('data-service', 'vimeo');
      frame.title = 'Added later';
      document.querySelector('main')!.appendChild(frame);
    });
    await placeholder(page, 'Added later').waitFor();
    expect(await placeholder(page, 'Added later').getByRole('button', { name: 'Load once' }).isVisible()).toBe(true);
    expect(loads).toEqual([]);

    await page.locator('#cc-main .cm').getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => [...loads].sort()).toEqual(['later', 'map', 'vimeo', 'youtube']);
    expect(await page.locator('.consentry-embed').count()).toBe(0);
    // A frame added once its category is on loads at once.
    await page.evaluate(() => {
      const frame = document.createElement('iframe');
      frame.setAttribute('data-src', '/embed/after-choice');
      frame.setAttribute('data-service', 'youtube');
      frame.title = 'After the choice';
      document.body.appendChild(frame);
    });
    await expect.poll(() => loads).toContain('after-choice');
    expect(await page.locator('.consentry-embed').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a later change of choice in the preferences shows every waiting frame in its placeholder\'s place', async () => {
    const { context, page, errors } = await newVisitor(browser);
    loads.length = 0;
    await visit(page);
    await page.locator('#cc-main .cm').getByRole('button', { name: 'Reject all', exact: true }).click();
    await expect.poll(() => page.evaluate(() => window.Consentry!.getConsent()?.accept_type)).toBe('necessary');
    expect(await page.locator('.consentry-embed').count()).toBe(3);
    await page.evaluate(() => window.Consentry!.showPreferences());
    await page.locator('#cc-main .pm').getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => [...loads].sort()).toEqual(['map', 'vimeo', 'youtube']);
    // The frame gated by data-category too is the placeholder's, not the plain gating's.
    await expect.poll(() => page.locator('.consentry-embed').count()).toBe(0);
    expect(await page.locator('iframe[title="Where we are"]').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('speaks the visitor\'s language', async () => {
    const { context, page } = await newVisitor(browser, { locale: 'de-DE' });
    await visit(page);
    const youtube = placeholder(page, 'Our shop on YouTube');
    expect(await youtube.getByRole('button', { name: 'Einmal laden' }).isVisible()).toBe(true);
    expect(await youtube.getByRole('button', { name: 'Immer erlauben' }).isVisible()).toBe(true);
    expect(await youtube.textContent()).toContain('„Immer erlauben“ aktiviert Werbung auf dieser Website.');
    // And every placeholder passes axe.
    await page.addScriptTag({ content: AXE });
    expect(await page.evaluate(() => (window as unknown as { axe: { run: (c: unknown) => Promise<{ violations: { id: string }[] }> } })
      .axe.run({ include: [['.consentry-embed']] }).then((result) => result.violations.map((violation) => violation.id)))).toEqual([]);
    await context.close();
  });
});
