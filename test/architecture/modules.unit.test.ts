/**
 * Every module of src/modules that has routes has the same four files (docs/architecture.md):
 * routes, schema, service, and a repository for the tables it owns.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULES = resolve(import.meta.dirname, '../../src/modules');

/** Modules that serve no resource of the API: the operational routes and the dashboard's files. */
const ROUTES_ONLY = new Set(['health', 'dashboard']);
/** Modules with routes that own no table: logging in works on the tokens and users modules'. */
const NO_TABLE = new Set(['auth']);

describe('modules', () => {
  it('with routes have routes, schema, service and repository files named after them', () => {
    const missing: string[] = [];
    for (const name of readdirSync(MODULES)) {
      const has = (kind: string) => existsSync(join(MODULES, name, `${name}.${kind}.ts`));
      if (!has('routes') || ROUTES_ONLY.has(name)) continue;
      const kinds = NO_TABLE.has(name) ? ['schema', 'service'] : ['schema', 'service', 'repository'];
      for (const kind of kinds) if (!has(kind)) missing.push(`${name}/${name}.${kind}.ts`);
    }
    expect(missing).toEqual([]);
  });
});
