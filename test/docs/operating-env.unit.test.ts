/**
 * docs/operating.md names every environment variable the service reads. The variables are found
 * two ways, so that neither can pass by finding nothing: in src/config.ts's text (a helper given the
 * environment and a name, `env.NAME`, `env['NAME']`, `process.env.NAME`), and by running
 * `loadConfig` on an environment that records each name read. The text must account for every name
 * the run reads (a new way of reading the environment fails here until the extraction learns it).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG_SOURCE = readFileSync(resolve(ROOT, 'src/config.ts'), 'utf8');
const NAME = String.raw`[A-Z][A-Z0-9_]*`;

/** Every name src/config.ts reads, by the shapes the file uses. */
function namesInSource(source: string): Set<string> {
  const shapes = [
    // integer(env, 'PORT', …), optional(env, 'HOST'), url(env, 'DATABASE_URL', …), any helper alike
    new RegExp(String.raw`\b\w+\(\s*env\s*,\s*['"\`](${NAME})['"\`]`, 'g'),
    new RegExp(String.raw`\b(?:process\.)?env\.(${NAME})\b`, 'g'),
    new RegExp(String.raw`\b(?:process\.)?env\[\s*['"\`](${NAME})['"\`]\s*\]`, 'g'),
  ];
  const names = new Set<string>();
  for (const shape of shapes) for (const match of source.matchAll(shape)) names.add(match[1]);
  return names;
}

/** The names loadConfig reads from an environment where nothing is set. */
function namesRead(): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  loadConfig(env);
  return read;
}

describe('docs/operating.md', () => {
  const inSource = namesInSource(CONFIG_SOURCE);
  const read = namesRead();

  it('finds the variables of src/config.ts by reading it and by running it', () => {
    // 41 today; far fewer means the extraction broke, not that the configuration shrank.
    expect(inSource.size).toBeGreaterThanOrEqual(30);
    expect(read.size).toBeGreaterThanOrEqual(30);
    expect([...read].filter((name) => !inSource.has(name)), 'read by loadConfig but not found in its text').toEqual([]);
  });

  it('names every one of them', () => {
    const page = readFileSync(resolve(ROOT, 'docs/operating.md'), 'utf8');
    const missing = [...new Set([...inSource, ...read])].filter((name) => !page.includes(`\`${name}\``)).sort();
    expect(missing, `environment variables read in src/config.ts and missing from docs/operating.md (as \`NAME\`): ${missing.join(', ')}`).toEqual([]);
  });
});
