/**
 * Every relative link in the README, SECURITY.md and docs/ points at a file or folder that exists,
 * and every `#anchor` of a link into a Markdown file names one of its headings: a page moved or a
 * heading renamed breaks the test, not the reader's path.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The pages whose links are checked. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join('docs', name));
  return ['README.md', 'SECURITY.md', ...docs];
}

/** The lines of a Markdown text outside fenced code blocks, each with its line number. */
function proseLines(text: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === undefined ? marker : undefined;
      return;
    }
    if (fence === undefined) out.push({ line, number: index + 1 });
  });
  return out;
}

/**
 * A heading's anchor as GitHub makes it: the text without link syntax or HTML, in lower case, every
 * character but letters, digits, `_`, `-` and spaces dropped (backticks and colons included), each
 * space a hyphen.
 */
function slug(heading: string): string {
  const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}_\s-]/gu, '').replace(/\s/g, '-');
}

/** The anchors a Markdown text offers: its headings' (duplicates numbered as GitHub does) and explicit ids. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
  }
  return anchors;
}

/** The link targets of a Markdown text with their line numbers: inline links and reference definitions, outside code. */
function linksOf(text: string): { target: string; number: number }[] {
  const links: { target: string; number: number }[] = [];
  for (const { line, number } of proseLines(text)) {
    const prose = line.replace(/(`+)(?:(?!\1).)*?\1/g, ''); // inline code spans hold no links
    for (const match of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1].replace(/^<|>$/g, ''), number });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose);
    if (definition) links.push({ target: definition[1], number });
  }
  return links;
}

/** A link that leaves the repository (a scheme such as https: or mailto:) is not checked here. */
const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/**
 * The broken links of one page (a path from the repository's root): `read` gives a file's text,
 * `exists` whether a file or folder is there. Each broken link is named `page:line target (why)`.
 */
function brokenLinks(
  page: string,
  text: string,
  read: (path: string) => string | undefined,
  exists: (path: string) => boolean,
): string[] {
  const broken: string[] = [];
  for (const { target, number } of linksOf(text)) {
    if (external(target)) continue;
    const hash = target.indexOf('#');
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const file = path === '' ? page : path.startsWith('/') ? path.slice(1) : join(dirname(page), path);
    const where = `${page}:${number} ${target}`;
    if (!exists(file)) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor === undefined || anchor === '' || !file.endsWith('.md')) continue;
    const anchors = anchorsOf(read(file) ?? '');
    if (!anchors.has(anchor)) broken.push(`${where} (no heading #${anchor})`);
  }
  return broken;
}

const onDisk = {
  read: (path: string) => (existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isFile() ? readFileSync(join(ROOT, path), 'utf8') : undefined),
  exists: (path: string) => existsSync(join(ROOT, path)),
};

describe('documentation links', () => {
  it('find a missing file, a missing heading and a link into a missing page, and pass the good ones', () => {
    const files: Record<string, string> = {
      'docs/a.md': '# Page A\n\n## The `npm run bench:scan` row\n\n## Twice\n\n## Twice\n',
      'docs/b.md': [
        '# Page B',
        '[ok](a.md) [ok](a.md#page-a) [ok](a.md#the-npm-run-benchscan-row) [ok](a.md#twice-1) [ok](#page-b)',
        '[ok](../README.md) [ok](https://example.com/nowhere.md) [ok](<a.md>)',
        '`[not a link](gone.md)`',
        '```',
        '[not a link](gone.md)',
        '```',
        '[bad](gone.md) [bad](a.md#nowhere) [bad](#nothing)',
        '[ref]: ../missing/',
      ].join('\n'),
      'README.md': '# Readme\n',
    };
    const found = brokenLinks('docs/b.md', files['docs/b.md'], (path) => files[path], (path) => path in files);
    expect(found).toEqual([
      'docs/b.md:8 gone.md (no such file)',
      'docs/b.md:8 a.md#nowhere (no heading #nowhere)',
      'docs/b.md:8 #nothing (no heading #nothing)',
      'docs/b.md:9 ../missing/ (no such file)',
    ]);
  });

  it('in the README, SECURITY.md and docs/ all point at something that exists', () => {
    const broken = pages().flatMap((page) => brokenLinks(page, readFileSync(join(ROOT, page), 'utf8'), onDisk.read, onDisk.exists));
    expect(broken, 'broken links').toEqual([]);
  });
});
