import { config } from './account.ts';

/** vanilla-cookieconsent's stylesheet, minified at build time. */
declare const __CONSENTRY_CSS__: string;

/** The library's stylesheet, our one fix to it, and the account's theme colours over it. */
export function injectStyle(): void {
  const style = document.createElement('style');
  const { theme } = config.banner;
  const vars = [
    theme.background && `--cc-bg:${theme.background};--cc-modal-bg:${theme.background}`,
    theme.text && `--cc-primary-color:${theme.text};--cc-secondary-color:${theme.text}`,
    theme.primary && `--cc-btn-primary-bg:${theme.primary};--cc-btn-primary-border-color:${theme.primary};--cc-btn-primary-hover-bg:${theme.primary};--cc-toggle-on-bg:${theme.primary}`,
    theme.primary_text && `--cc-btn-primary-color:${theme.primary_text};--cc-btn-primary-hover-color:${theme.primary_text}`,
  ].filter(Boolean);
  // A category without a description or items has nothing to expand: the library leaves its arrow unsized.
  const fixes = '#cc-main .pm__section--toggle:not(.pm__section--expandable) .pm__section-arrow{display:none}';
  // The opt-out regions' "Do Not Sell or Share" button (notices.ts), in the banner's colours.
  const doNotSell = '#consentry-dns{position:fixed;left:1em;bottom:1em;z-index:2147483646;padding:.5em .9em;font:600 13px/1.2 var(--cc-font-family);' +
    'color:var(--cc-primary-color);background:var(--cc-bg);border:1px solid var(--cc-btn-secondary-border-color);border-radius:var(--cc-btn-border-radius);cursor:pointer}';
  style.textContent = __CONSENTRY_CSS__ + fixes + doNotSell + (vars.length ? `#cc-main,#consentry-dns{${vars.join(';')}}` : '');
  (document.head || document.documentElement).appendChild(style);
}
