import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { withoutUnusedLayouts } from '../../../banner/build.ts';

const library = readFileSync(join('node_modules', 'vanilla-cookieconsent', 'dist', 'cookieconsent.css'), 'utf8');

describe('the banner stylesheet without the layouts it never uses', () => {
  it('drops the selectors of the preferences modal bar, and the rules left with none, inside @media too', () => {
    const css = '.a,#m .pm--bar .x{color:red}#m .pm--wide{top:0}@media (max-width:640px){#m .pm--left{left:0}#m .pm{width:auto}}@media print{#m .pm--right{x:1}}@font-face{font-family:x}.b{c:d}';
    expect(withoutUnusedLayouts(css)).toBe('.a{color:red}@media (max-width:640px){#m .pm{width:auto}}@font-face{font-family:x}.b{c:d}');
  });

  it('keeps every other rule of the library stylesheet, whose selectors have no comma in parentheses', async () => {
    const minified = (await transform(library, { loader: 'css', minify: true })).code.trim();
    expect(minified).not.toMatch(/\([^(){}]*,[^(){}]*\)[^{};]*\{/);
    const stripped = withoutUnusedLayouts(minified);
    expect(stripped).not.toMatch(/pm--(bar|wide|left|right)/);
    // What is left is the library's text with only those selectors taken out.
    const selectorsOf = (css: string) => css.match(/[^{}]+(?=\{)/g)!.flatMap((prelude) => prelude.split(',')).filter((s) => !/pm--(bar|wide|left|right)/.test(s));
    expect(selectorsOf(stripped)).toEqual(selectorsOf(minified));
    expect(stripped).toContain('#cc-main .pm--box');
    expect(minified.length - stripped.length).toBeGreaterThan(2000);
  });
});
