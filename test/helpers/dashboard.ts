import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export { freePort } from '../../bench/processes.ts';

/** Screenshots of every page at both widths land here (git-ignored; CI keeps them as artefacts). */
export const ARTIFACTS = 'test-artifacts/dashboard';
export const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Signs in through the sign-in page and waits for the account's page. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(/\/accounts\//);
  await settled(page);
}

/** The page has its heading and nothing left loading. */
export async function settled(page: Page): Promise<void> {
  await page.locator('#page-title').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0);
}

interface Violation { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }

/**
 * axe-core in the page, through the DevTools protocol (the page's content security policy allows
 * no injected script tag). Only serious and critical violations fail.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Checks the page with axe and takes its screenshots at 1280 and 390 pixels wide. */
export async function inspect(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Parts that load on their own (the account switcher) are checked too.
  await page.waitForLoadState('networkidle');
  for (const [label, size] of Object.entries(WIDTHS)) {
    await page.setViewportSize(size);
    await settled(page);
    expect(await seriousViolations(page), `${name} at ${size.width}px`).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${name} at ${size.width}px scrolls sideways`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${ARTIFACTS}/${name}-${label}.png`, fullPage: true });
  }
  await page.setViewportSize(WIDTHS.desktop);
}
