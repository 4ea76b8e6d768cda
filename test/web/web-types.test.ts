import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileApp } from '../helpers/file-app.ts';

/**
 * The dashboard's types are generated from the OpenAPI document and committed (web/openapi.json,
 * web/src/api/schema.d.ts). A route changed without regenerating them would leave the dashboard
 * typed against an API that no longer exists. The document reads nothing the engine keeps: the
 * embedded project only (vitest.config.ts).
 */
const { t } = fileApp();

const withoutServers = (document: Record<string, unknown>) => ({ ...document, servers: undefined });

describe('the dashboard types', () => {
  it('were generated from the current OpenAPI document (else: npm run web:types)', () => {
    const committed = JSON.parse(readFileSync('web/openapi.json', 'utf8'));
    const current = JSON.parse(JSON.stringify(t.app.swagger()));
    expect(withoutServers(committed), 'web/openapi.json is stale: run `npm run web:types` and commit both files').toEqual(withoutServers(current));
  });
});
