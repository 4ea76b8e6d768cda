/**
 * The layers of docs/architecture.md, enforced: every relative import in src/ points down or
 * within its own layer, a module reaches another module only through its services and schemas
 * (`*.service.ts`, `*.schema.ts`), never its repositories or internals, and only route files see
 * `Services`. No file of src/ or banner/src/ comes back to itself through its imports, whatever
 * their kind (type-only, re-exports, dynamic `import()`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const BANNER_SRC = resolve(import.meta.dirname, '../../banner/src');

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
  for (const match of text.matchAll(/^(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?(['"])(\.{1,2}\/[^'"]+)\3/gm)) {
    found.push({ from: file, to: resolve(dirname(file), match[4]), typeOnly: match[2] !== undefined });
  }
  for (const match of text.matchAll(/import\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g)) {
    found.push({ from: file, to: resolve(dirname(file), match[2]), typeOnly: false });
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
  // Route plugins are given the services: route files name that type, and nothing else from the top.
  // Every other file of a module takes the narrow dependencies it uses, declared where it uses them.
  if (from.layer === 'modules' && to.layer === 'services.ts') {
    if (!from.file.endsWith('.routes.ts')) return 'only route files see Services';
    if (imported.typeOnly) return undefined;
  }
  return allowed.includes(to.layer) ? undefined : `${from.layer} imports ${to.layer}`;
}

/**
 * Every cycle of the import graph, one per strongly connected group of files (Tarjan's algorithm),
 * each as the shortest path that leaves a file and comes back to it, `a.ts -> b.ts -> a.ts`, with
 * the count of the group's files it does not pass through.
 */
export function cycles(imports: Import[], name: (path: string) => string = (path) => path): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of imports) next.set(from, [...(next.get(from) ?? []), to]);
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (!order.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (stack.includes(to)) {
        low.set(file, Math.min(low.get(file)!, order.get(to)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const group = new Set(stack.splice(stack.indexOf(file)));
    if (group.size > 1 || next.get(file)?.includes(file)) found.push(pathBack(file, group));
  };
  // The shortest way from `file` back to itself, through the group (a breadth-first search).
  const pathBack = (file: string, group: Set<string>): string => {
    const cameFrom = new Map<string, string>();
    const queue = [file];
    for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
      for (const to of next.get(at) ?? []) {
        if (to === file) {
          const path: string[] = [];
          for (let step = at; step !== file; step = cameFrom.get(step)!) path.unshift(step);
          const more = group.size - path.length - 1;
          return [file, ...path, file].map(name).join(' -> ') + (more > 0 ? ` (and ${more} more file${more === 1 ? '' : 's'} in the same loop)` : '');
        }
        if (group.has(to) && !cameFrom.has(to)) {
          cameFrom.set(to, at);
          queue.push(to);
        }
      }
    }
    throw new Error(`no way back to ${file}`);
  };
  for (const file of next.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('imports', () => {
  const imports = sourceFiles(SRC).flatMap((file) => importsOf(file, readFileSync(file, 'utf8')));
  const bannerImports = sourceFiles(BANNER_SRC).flatMap((file) => importsOf(file, readFileSync(file, 'utf8')));

  it('point down the layers, and between modules only at a service or a schema', () => {
    expect(imports.length).toBeGreaterThan(300);
    const broken = imports.flatMap((imported) => {
      const why = violation(imported);
      return why ? [`${relative(SRC, imported.from)} -> ${relative(SRC, imported.to)}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('never come back to the file they left, type-only, re-exported or dynamic ones included', () => {
    const all = [...imports, ...bannerImports];
    const root = resolve(SRC, '..');
    // A path the reading got wrong would be an import to nowhere, and a cycle through it unseen.
    expect(all.filter(({ to }) => !existsSync(to)).map(({ from, to }) => `${relative(root, from)} -> ${relative(root, to)}`)).toEqual([]);
    expect(cycles(all, (path) => relative(root, path))).toEqual([]);
  });

  it('are read and judged as the rules say', () => {
    const at = (path: string) => join(SRC, path);
    const judge = (from: string, to: string, typeOnly = false) => violation({ from: at(from), to: at(to), typeOnly });
    const text = [
      "import type { A } from '../y/b.ts';",
      "export { c } from './c.ts';",
      'export type { E } from "./e.ts";',
      "import {\n  f,\n  type F,\n} from './f.ts';",
      "const d = await import('./d.ts');",
      "type G = typeof import('./g.ts');",
    ].join('\n');
    expect(importsOf(at('x/a.ts'), text)).toEqual([
      { from: at('x/a.ts'), to: at('y/b.ts'), typeOnly: true },
      { from: at('x/a.ts'), to: at('x/c.ts'), typeOnly: false },
      { from: at('x/a.ts'), to: at('x/e.ts'), typeOnly: true },
      { from: at('x/a.ts'), to: at('x/f.ts'), typeOnly: false },
      { from: at('x/a.ts'), to: at('x/d.ts'), typeOnly: false },
      { from: at('x/a.ts'), to: at('x/g.ts'), typeOnly: false },
    ]);
    const edge = (from: string, to: string) => ({ from, to, typeOnly: true });
    expect(cycles([edge('a', 'b'), edge('b', 'c'), edge('c', 'd')])).toEqual([]);
    expect(cycles([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd'), edge('d', 'd')]).sort()).toEqual(['a -> b -> c -> a', 'd -> d']);
    expect(cycles([edge('x', 'a'), edge('a', 'b'), edge('b', 'a'), edge('b', 'c'), edge('c', 'a')])).toEqual(['a -> b -> a (and 1 more file in the same loop)']);
    expect(judge('http/auth.ts', 'modules/tokens/tokens.repository.ts')).toBe('http imports modules');
    expect(judge('http/auth.ts', 'services.ts', true)).toBe('http imports services.ts');
    expect(judge('ai/a.ts', 'db/schema.ts', true)).toBe('ai imports db');
    expect(judge('lib/a.ts', 'config.ts')).toBe('lib imports config.ts');
    expect(judge('modules/a/a.service.ts', 'modules/b/b.repository.ts')).toBe('reaches into module b past its service and schema');
    expect(judge('modules/a/a.service.ts', 'modules/b/b.service.ts')).toBeUndefined();
    expect(judge('modules/a/a.routes.ts', 'services.ts', true)).toBeUndefined();
    expect(judge('modules/a/a.routes.ts', 'services.ts')).toBe('modules imports services.ts');
    expect(judge('modules/a/a.service.ts', 'services.ts', true)).toBe('only route files see Services');
    expect(judge('modules/a/a-worker.ts', 'services.ts', true)).toBe('only route files see Services');
    expect(judge('app.ts', 'modules/b/b.repository.ts')).toBeUndefined();
  });
});
