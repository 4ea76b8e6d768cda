/**
 * The hosts the cookie databases and the registry name, read alike: what each source writes
 * (`.example.com`, `cookiebot.com (3rd party)`, a URL) comes down to a bare host name.
 */
const HOST = /[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+/;

/** `https://.Sub.Example.com:8080/x (3rd party)` → `sub.example.com`; '' when there is no host in it. */
export function normaliseHost(raw: string | undefined): string {
  const text = (raw ?? '').trim().toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/^\*?\.+/, '');
  return HOST.exec(text)?.[0] ?? '';
}

/** The host and each parent domain with at least two labels: `a.b.example.com`, `b.example.com`, `example.com`. */
export function hostAndParents(host: string): string[] {
  const labels = host.split('.');
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'));
  return out;
}
