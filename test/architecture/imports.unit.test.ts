/**
 * The layers of docs/architecture.md, enforced: every relative import in src/ points down or
 * within its own layer, and a module reaches another module only through its services and schemas
 * (`*.service.ts`, `*.schema.ts`), never its repositories or internals.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** What each layer may import besides itself. The top (app, server, cli, demo, services) may import anything. */
const MAY_IMPORT: Record<string, string[]> = {
  lib: [],
  'config.ts': ['lib'],
  db: ['lib', 'config.ts'],
  'redis.ts': ['lib', 'config.ts'],
  mail: ['lib', 'config.ts', 'db'],
  ai: ['lib'],
  scanner: ['lib'],
  geo: ['lib'],
  http: ['lib', 'config.ts', 'db', 'redis.ts'],
  modules: ['lib', 'config.ts', 'db', 'redis.ts', 'mail', 'ai', 'scanner', 'geo', 'http', 'banner'],
};
const TOP = new Set(['app.ts', 'server.ts', 'cli.ts', 'demo.ts', 'services.ts']);

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Static imports and re-exports with a relative specifier, and dynamic `import('./…')`. */
export function importsOf(file: string, text: string): Import[] {
  const found: Import[] = [];
  for (const match of text.matchAll(/^(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'(\.{1,2}\/[^']+)'/gm)) {
    found.push({ from: file, to: resolve(dirname(file), match[3]), typeOnly: match[2] !== undefined });
  }
  for (const match of text.matchAll(/import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)) {
    found.push({ from: file, to: resolve(dirname(file), match[1]), typeOnly: false });
  }
  return found;
}

/** `modules/<name>` for a module's file, the folder for other layers, the file name at the top. */
function placeOf(path: string): { layer: string; module?: string; file: string } {
  const parts = relative(SRC, path).split('/');
  if (parts[0] === '..') return { layer: parts[1] === 'banner' ? 'banner' : 'outside', file: parts.at(-1)! };
  if (parts.length === 1) return { layer: parts[0], file: parts[0] };
  return { layer: parts[0], module: parts[0] === 'modules' ? parts[1] : undefined, file: parts.at(-1)! };
}

/** Why an import breaks the layering, or undefined when it keeps it. */
export function violation(imported: Import): string | undefined {
  const from = placeOf(imported.from);
  const to = placeOf(imported.to);
  if (TOP.has(from.layer)) return undefined;
  const allowed = MAY_IMPORT[from.layer];
  if (!allowed) return `${from.layer} is not a known layer`;
  if (from.layer === 'modules' && to.layer === 'modules') {
    if (from.module === to.module) return undefined;
    const publicFile = to.file.endsWith('.service.ts') || to.file.endsWith('.schema.ts');
    return publicFile ? undefined : `reaches into module ${to.module} past its service and schema`;
  }
  if (to.layer === from.layer) return undefined;
  // Route plugins are given the services: the modules name that type, and nothing else from the top.
  if (from.layer === 'modules' && to.layer === 'services.ts' && imported.typeOnly) return undefined;
  return allowed.includes(to.layer) ? undefined : `${from.layer} imports ${to.layer}`;
}

describe('imports', () => {
  const imports = sourceFiles(SRC).flatMap((file) => importsOf(file, readFileSync(file, 'utf8')));

  it('point down the layers, and between modules only at a service or a schema', () => {
    expect(imports.length).toBeGreaterThan(300);
    const broken = imports.flatMap((imported) => {
      const why = violation(imported);
      return why ? [`${relative(SRC, imported.from)} -> ${relative(SRC, imported.to)}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('are read and judged as the rules say', () => {
    const at = (path: string) => join(SRC, path);
    const judge = (from: string, to: string, typeOnly = false) => violation({ from: at(from), to: at(to), typeOnly });
    expect(importsOf(at('x/a.ts'), "import type { A } from '../y/b.ts';\nexport { c } from './c.ts';\nconst d = await import('./d.ts');"))
      .toEqual([
        { from: at('x/a.ts'), to: at('y/b.ts'), typeOnly: true },
        { from: at('x/a.ts'), to: at('x/c.ts'), typeOnly: false },
        { from: at('x/a.ts'), to: at('x/d.ts'), typeOnly: false },
      ]);
    expect(judge('http/auth.ts', 'modules/tokens/tokens.repository.ts')).toBe('http imports modules');
    expect(judge('http/auth.ts', 'services.ts', true)).toBe('http imports services.ts');
    expect(judge('ai/a.ts', 'db/schema.ts', true)).toBe('ai imports db');
    expect(judge('lib/a.ts', 'config.ts')).toBe('lib imports config.ts');
    expect(judge('modules/a/a.service.ts', 'modules/b/b.repository.ts')).toBe('reaches into module b past its service and schema');
    expect(judge('modules/a/a.service.ts', 'modules/b/b.service.ts')).toBeUndefined();
    expect(judge('modules/a/a.routes.ts', 'services.ts', true)).toBeUndefined();
    expect(judge('modules/a/a.routes.ts', 'services.ts')).toBe('modules imports services.ts');
    expect(judge('app.ts', 'modules/b/b.repository.ts')).toBeUndefined();
  });
});
