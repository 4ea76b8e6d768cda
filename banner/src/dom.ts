/** Small builders of the banner's own elements: their words always as text, never as markup. */

export function paragraph(...content: (string | Node)[]): HTMLParagraphElement {
  const p = document.createElement('p');
  p.append(...content);
  return p;
}

export function button(text: string, onClick: () => void): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = text;
  element.addEventListener('click', onClick);
  return element;
}

/** Adds a stylesheet of the banner's own to the page. */
export function addStyle(css: string): void {
  const style = document.createElement('style');
  style.textContent = css;
  (document.head || document.documentElement).appendChild(style);
}
