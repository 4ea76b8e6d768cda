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

/** Values filed by host name, found by a host or its nearest parent domain (`cdn.example.com` → `example.com`). */
export class HostMap<T> {
  private readonly byHost = new Map<string, T>();

  /** Files `value` under each host as a source writes it, where no earlier value holds it: the first wins. */
  add(hosts: readonly string[], value: T): void {
    for (const raw of hosts) {
      const host = normaliseHost(raw);
      if (host && !this.byHost.has(host)) this.byHost.set(host, value);
    }
  }

  /** The value of the host or of its nearest parent domain. */
  find(host: string): T | undefined {
    if (!host) return undefined;
    for (const candidate of hostAndParents(host)) {
      const value = this.byHost.get(candidate);
      if (value !== undefined) return value;
    }
    return undefined;
  }
}
