/**
 * Embedded content that needs consent: `<iframe data-src="…" data-service="youtube">` (the key of
 * one of the account's services, whose category gates it; `data-category` names the category of a
 * service the account does not list) shows a placeholder in its place until that category is
 * accepted, with "Load once" (this frame, this page, nothing recorded) and "Always allow" (the
 * category accepted, and so recorded). Nothing of the third party is fetched before: no thumbnail.
 * Frames added later are found as they appear. Part of the extras file (extras.ts).
 */
import type { BannerCategory, BannerService } from './config.ts';
import { EMBED_TRANSLATIONS, shippedFor } from './declaration-texts.ts';
import { addStyle, button, paragraph } from './dom.ts';
import type { ExtrasHost } from './extras-host.ts';

const EMBEDS = 'iframe[data-src][data-service]';
const DONE = 'data-consentry-done';
const HIDDEN = 'data-consentry-display';

/** Each frame waiting, and its placeholder. */
const waiting = new Map<HTMLIFrameElement, HTMLElement>();
let placed = 0;

function load(frame: HTMLIFrameElement): void {
  frame.setAttribute(DONE, '');
  const placeholder = waiting.get(frame);
  waiting.delete(frame);
  if (placeholder) {
    placeholder.remove();
    frame.style.display = frame.getAttribute(HIDDEN) || '';
  }
  frame.src = frame.getAttribute('data-src') || '';
}

/**
 * Loads each marked frame whose category is on, and puts a placeholder before each other one: from
 * the start, as frames are added, and on every choice.
 */
export function startEmbeds(host: ExtrasHost): void {
  const { cc, config, bySlug } = host;
  const words = shippedFor(EMBED_TRANSLATIONS, host.language);
  const services = new Map<string, [BannerService, BannerCategory]>();
  for (const category of config.categories) for (const service of category.services) services.set(service.slug, [service, category]);
  const on = (slug: string) => !!host.preferences()?.acceptedCategories.includes(slug);

  function place(frame: HTMLIFrameElement, name: string, category: BannerCategory | undefined, service: BannerService | undefined): void {
    if (!placed++) {
      addStyle('.consentry-embed{box-sizing:border-box;max-width:100%;padding:1em;background:#f3f3f3;color:#1a1a1a;border:1px solid #999;' +
        'font:14px/1.45 system-ui,sans-serif}.consentry-embed button{font:inherit;padding:.4em .9em;margin-right:.5em}');
    }
    const box = document.createElement('div');
    box.className = 'consentry-embed';
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', frame.title || name);
    // The frame's size, through the style object (which a Content-Security-Policy allows).
    const size = (value: string | null) => (value && /^\d+$/.test(value) ? `${value}px` : value || '');
    box.style.width = size(frame.getAttribute('width'));
    box.style.minHeight = size(frame.getAttribute('height'));
    box.append(paragraph(words.embed_notice.replace('{service}', name)));
    const policy = service?.privacy_policy_url;
    if (policy && /^https?:\/\//i.test(policy)) {
      const link = document.createElement('a');
      link.href = policy;
      link.target = '_blank';
      link.rel = 'noopener';
      link.textContent = config.texts[host.language].privacy_policy;
      box.append(paragraph(link));
    }
    const buttons = paragraph(button(words.embed_load_once, () => load(frame)));
    box.append(buttons);
    if (category) {
      const note = paragraph(words.embed_always_note.replace('{category}', host.name(category)));
      note.id = `consentry-embed-${placed}`;
      const always = button(words.embed_always_allow, () => {
        // As the preferences would: the category accepted, and the choice recorded.
        cc.acceptCategory([...(host.preferences()?.acceptedCategories ?? []), category.slug]);
        cc.hide();
        release();
      });
      always.setAttribute('aria-describedby', note.id);
      buttons.append(always);
      box.append(note);
    }
    frame.setAttribute(HIDDEN, frame.style.display);
    frame.style.display = 'none';
    frame.before(box);
    waiting.set(frame, box);
  }

  function release(): void {
    for (const frame of Array.from(document.querySelectorAll<HTMLIFrameElement>(EMBEDS))) {
      if (frame.hasAttribute(DONE)) continue;
      const key = (frame.getAttribute('data-service') || '').trim();
      const [service, category] = services.get(key.toLowerCase()) ??
        [undefined, (frame.getAttribute('data-category') || '').split(/[\s,]+/).map((slug) => bySlug.get(slug)).find(Boolean)];
      if (category && (category.required || on(category.slug))) load(frame);
      else if (!waiting.has(frame)) place(frame, service ? host.name(service) : key, category, service);
    }
    // A frame the page removed takes its placeholder with it.
    waiting.forEach((box, frame) => {
      if (!frame.isConnected) {
        box.remove();
        waiting.delete(frame);
      }
    });
  }

  release();
  window.addEventListener('consentry:change', release);
  new MutationObserver((records) => {
    if (records.some((record) => Array.from(record.addedNodes).some((node) => node instanceof Element && (node.matches(EMBEDS) || !!node.querySelector(EMBEDS))))) {
      release();
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
}
