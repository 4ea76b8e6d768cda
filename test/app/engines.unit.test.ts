/**
 * `npm ci` on Node 20 gives no engine warnings: every package the lock file installs accepts
 * Node 20 (the version this project supports, `engines.node` >= 20). The Open Cookie Database is
 * vendored for that reason (its npm carrier asked for Node >= 24).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Version = [number, number, number];

function parse(text: string): Version | undefined {
  const match = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(text.trim());
  if (!match) return undefined;
  const n = (part: string | undefined) => (part === undefined || part === 'x' || part === '*' ? 0 : Number(part));
  return [Number(match[1]), n(match[2]), n(match[3])];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** One comparator of an npm range (`>=18`, `^14.17.0`, `~16.2`, `20.x`, `*`). */
function satisfiesComparator(version: Version, comparator: string): boolean {
  const c = comparator.trim();
  if (c === '' || c === '*' || c === 'x') return true;
  const op = /^(>=|<=|>|<|=|\^|~)?\s*(.*)$/.exec(c)!;
  const target = parse(op[2]);
  if (!target) throw new Error(`unreadable engines range part: ${comparator}`);
  const cmp = compare(version, target);
  const parts = op[2].trim().split('.').filter((part) => /^\d+$/.test(part)).length;
  switch (op[1]) {
    case '>=': return cmp >= 0;
    case '>': return cmp > 0;
    case '<=': return cmp <= 0;
    case '<': return cmp < 0;
    case '^': return cmp >= 0 && version[0] === target[0];
    case '~': return cmp >= 0 && version[0] === target[0] && (parts < 2 || version[1] === target[1]);
    default: return parts === 1 ? version[0] === target[0] : parts === 2 ? version[0] === target[0] && version[1] === target[1] : cmp === 0;
  }
}

export function satisfies(version: string, range: string): boolean {
  const v = parse(version)!;
  return range.split('||').some((alternative) => {
    const normalised = alternative.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1');
    // A hyphen range `1.2 - 3`.
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(normalised);
    if (hyphen) return satisfiesComparator(v, `>=${hyphen[1]}`) && satisfiesComparator(v, `<=${hyphen[2]}`);
    return normalised.split(/\s+/).every((comparator) => satisfiesComparator(v, comparator));
  });
}

describe('engines', () => {
  it('reads npm ranges', () => {
    expect(satisfies('20.20.2', '>=24.0.0')).toBe(false);
    expect(satisfies('20.20.2', '>=22')).toBe(false);
    expect(satisfies('20.20.2', '>=18')).toBe(true);
    expect(satisfies('20.20.2', '^18.17.0 || >=20.5.0')).toBe(true);
    expect(satisfies('20.20.2', '^14 || ^16')).toBe(false);
    expect(satisfies('20.20.2', '>= 12.13.0')).toBe(true);
    expect(satisfies('20.20.2', '20.x')).toBe(true);
    expect(satisfies('20.20.2', '>=20 <21')).toBe(true);
  });

  it('every package the lock file installs accepts Node 20, the lowest this project supports', () => {
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([, pkg]) => pkg.engines && !Array.isArray(pkg.engines) && pkg.engines.node)
      .filter(([, pkg]) => !satisfies('20.0.0', (pkg.engines as { node: string }).node) && !satisfies('20.20.2', (pkg.engines as { node: string }).node))
      .map(([path, pkg]) => `${path}: node ${(pkg.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
