/** Whether a text is a web page's address: http or https with a host (`javascript:`, `data:` and the like are not). */
export function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
