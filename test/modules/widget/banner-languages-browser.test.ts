import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { RETRIED_UNDER_CI, describeBrowser, reportRetries } from '../../helpers/browser.ts';

/**
 * The language a visitor gets: a shop whose template marks every page `lang="en"`, visited by a
 * German browser, on an account that speaks English and German and has German words for its
 * categories, storage items and services. Nothing of the account's English may show. The embedded
 * project only (vitest.config.ts): the API under the banner is tested on both engines.
 */
describeBrowser('the banner in the visitor\'s language', RETRIED_UNDER_CI, () => {
  reportRetries();
  const { t, tenants: [tenant], browser, shop } = bannerShop(['Languages'], (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(`<!doctype html>
<html lang="${url.searchParams.get('lang') ?? 'en'}"><head><meta charset="utf-8"><title>Shop</title>
<script src="${t.url}/widget/${tenant.account.id}.js"></script>
</head><body><main><h1>Shop</h1></main></body></html>`);
  });

  /** The account's texts, each in English (the default) and in German. */
  const CATEGORIES = [
    { name: 'Strictly required', description: 'Keeps the shopping basket working.', required: true, de: { name: 'Unverzichtbar', description: 'Hält den Warenkorb am Laufen.' } },
    { name: 'Visitor statistics', description: 'Shows which pages people read.', required: false, de: { name: 'Besucherstatistik', description: 'Zeigt, welche Seiten gelesen werden.' } },
    { name: 'Advertising', description: 'Follows visitors around other websites.', required: false, de: { name: 'Werbung', description: 'Folgt Besuchern auf andere Websites.' } },
  ];
  const ITEMS = [
    { name: 'cart_ref', category: 0, duration: 'session', description: 'Remembers what you put in your basket.', de: { description: 'Merkt sich, was im Warenkorb liegt.', duration: 'Sitzung' } },
    { name: '_pk_id', category: 1, duration: '13 months', description: 'Tells returning readers apart.', de: { description: 'Unterscheidet wiederkehrende Leser.', duration: '13 Monate' } },
    { name: 'ad_trail', category: 2, duration: '90 days', description: 'Counts clicks on banners elsewhere.', de: { description: 'Zählt Klicks auf Anzeigen anderswo.', duration: '90 Tage' } },
  ];
  const SERVICES = [
    { name: 'Reader counter', description: 'Counts readers.', category: 1, de: { name: 'Leserzähler', description: 'Zählt Leser.' } },
    { name: 'Banner network', description: 'Places banners.', category: 2, de: { name: 'Anzeigennetz', description: 'Platziert Anzeigen.' } },
  ];

  const words = (texts: string[]) => new Set(texts.flatMap((text) => text.toLowerCase().match(/\p{L}{4,}/gu) ?? []));
  const english = [...CATEGORIES.flatMap((c) => [c.name, c.description]), ...ITEMS.flatMap((i) => [i.description, i.duration]), ...SERVICES.flatMap((s) => [s.name, s.description])];
  const german = [...CATEGORIES.flatMap((c) => [c.de.name, c.de.description]), ...ITEMS.flatMap((i) => [i.de.description, i.de.duration]), ...SERVICES.flatMap((s) => [s.de.name, s.de.description])];
  /** The English words of the account's texts that its German texts do not use. */
  const germanWords = words(german);
  const distinctive = [...words(english)].filter((word) => !germanWords.has(word));

  beforeAll(async () => {
    await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['localhost']) }).where('id', '=', tenant.account.id).execute();
    const token = tenant.tokens.account;
    const post = async (path: string, body: object) => {
      const res = await call(t.app, 'POST', path, { token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.id as string;
    };
    expect((await call(t.app, 'PATCH', '/api/v1/banner', { token, body: { banner: { languages: ['en', 'de'] } } })).status).toBe(200);
    const categoryIds: string[] = [];
    for (const { de, ...category } of CATEGORIES) categoryIds.push(await post('/api/v1/categories', { category: { ...category, translations: { de } } }));
    for (const { de, category, ...item } of ITEMS) {
      await post('/api/v1/storage-items', { storage_item: { ...item, category_id: categoryIds[category], status: 'finalised', translations: { de } } });
    }
    for (const { de, category, ...rest } of SERVICES) {
      await post('/api/v1/services', { service: { ...rest, company_name: 'Innocraft', category_id: categoryIds[category], translations: { de } } });
    }
  });

  /**
   * A new visitor whose browser asks for `locale`, on a page marked `lang`: the banner's text and
   * its preferences', opened with the banner's "Manage preferences" button in whatever language it speaks.
   */
  async function preferences(locale: string, lang: string): Promise<{ page: Page; text: string; close: () => Promise<void> }> {
    const context = await browser.newContext({ locale });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(`${shop.url}/?lang=${lang}`);
    await page.locator('#cc-main .cm button[data-role="show"]').click();
    await page.locator('#cc-main .pm').waitFor();
    const text = (await page.locator('#cc-main').textContent()) ?? '';
    return { page, text, close: () => context.close() };
  }

  const englishIn = (text: string) => distinctive.filter((word) => new RegExp(`(^|[^\\p{L}])${word}($|[^\\p{L}])`, 'iu').test(text));

  it('speaks German to a German browser on a page marked English: no English word of the account\'s texts shows', async () => {
    expect(distinctive.length).toBeGreaterThan(20);
    const { page, text, close } = await preferences('de-DE', 'en');
    // None of the English words, and the German ones all there.
    expect(englishIn(text)).toEqual([]);
    expect(await page.getByRole('button', { name: 'Alle akzeptieren', exact: true }).first().isVisible()).toBe(true);
    for (const word of ['Besucherstatistik', 'Unverzichtbar', 'Werbung', 'Leserzähler', 'Anzeigennetz', 'Zählt Klicks auf Anzeigen anderswo.', '13 Monate', 'Sitzung']) {
      expect(text, word).toContain(word);
    }
    await close();
  });

  it('follows the order the account sets: the page first speaks English to the same browser', async () => {
    const set = await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { language_sources: ['page', 'browser', 'default'] } } });
    expect(set.status).toBe(200);
    try {
      const { text, close } = await preferences('de-DE', 'en');
      expect(text).toContain('Visitor statistics');
      expect(text).toContain('13 months');
      expect(text).not.toContain('Besucherstatistik');
      await close();
    } finally {
      await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { language_sources: ['browser', 'page', 'default'] } } });
    }
  });

  it('counts only the languages the account speaks: a French browser falls to the page, a Japanese one to a German page', async () => {
    const french = await preferences('fr-FR', 'en');
    expect(french.text).toContain('Visitor statistics');
    await french.close();
    const japanese = await preferences('ja-JP', 'de');
    expect(japanese.text).toContain('Besucherstatistik');
    expect(englishIn(japanese.text)).toEqual([]);
    await japanese.close();
  });
});
