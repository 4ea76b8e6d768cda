/**
 * Small promises of the repository: one version everywhere, and the demo's secrets never committed.
 * No row is read: the embedded project only (vitest.config.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call, startApp } from '../helpers/app.ts';

describe('housekeeping', () => {
  it('gives the OpenAPI document the interface version the specification names, which package.json carries too', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(version).toBe('1.2.0');
    const t = await startApp();
    try {
      const doc = await call(t.app, 'GET', '/api/v1/openapi.json');
      expect(doc.body.info.version).toBe(version);
    } finally {
      await t.close();
    }
  });

  it('keeps demo.json (the demo tenant\'s tokens and password) out of git', () => {
    // `git check-ignore` exits 0 when the path is ignored, 1 when it is not.
    expect(execFileSync('git', ['check-ignore', 'demo.json'], { encoding: 'utf8' }).trim()).toBe('demo.json');
  });
});
