/**
 * Script and iframe gating: `<script type="text/plain" data-category="analytics">` (with `data-src`
 * for an external one) and `<iframe data-src=… data-category=…>` start only once their category is
 * accepted. Each runs at most once per page.
 */
// An iframe marked with `data-service` is embedded content: embeds.ts shows it a placeholder.
const GATED = 'script[type="text/plain"][data-category], iframe[data-src][data-category]:not([data-service])';
const DONE = 'data-consentry-done';

function categoriesOf(element: Element): string[] {
  return (element.getAttribute('data-category') ?? '').split(/[\s,]+/).filter(Boolean);
}

function runScript(original: HTMLScriptElement): void {
  const script = document.createElement('script');
  for (const { name, value } of Array.from(original.attributes)) {
    if (name === 'type' || name === 'data-src' || name === DONE) continue;
    script.setAttribute(name, value);
  }
  const type = original.getAttribute('data-type');
  if (type) script.type = type;
  const src = original.getAttribute('data-src');
  if (src) {
    // Keep the document's order among external scripts, as the page wrote them.
    script.async = false;
    script.src = src;
  } else {
    script.text = original.text;
  }
  script.setAttribute(DONE, '');
  original.setAttribute(DONE, '');
  original.replaceWith(script);
}

/** Starts every gated element whose categories are all accepted. */
export function releaseGated(accepted: (slug: string) => boolean, root: ParentNode = document): void {
  for (const element of Array.from(root.querySelectorAll(GATED))) {
    if (element.hasAttribute(DONE)) continue;
    const categories = categoriesOf(element);
    if (categories.length === 0 || !categories.every(accepted)) continue;
    if (element instanceof HTMLScriptElement) runScript(element);
    else if (element instanceof HTMLIFrameElement) {
      element.setAttribute(DONE, '');
      element.src = element.getAttribute('data-src') ?? '';
    }
  }
}

/** Gated elements added later (by the page's own scripts) are released as they appear. */
export function watchGated(accepted: (slug: string) => boolean): void {
  new MutationObserver((records) => {
    if (records.some((record) => Array.from(record.addedNodes).some((node) => node instanceof Element))) {
      releaseGated(accepted);
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
}
