import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startApp, type TestApp } from '../../helpers/app.ts';
import { createTenant } from '../../helpers/tenants.ts';

/** A stand-in for an OpenAI-compatible endpoint on the loopback interface. */
let llm: Server;
const seen: Array<{ authorization: string | undefined; model: string; system: string; user: string }> = [];
let t: TestApp;

async function body(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

beforeAll(async () => {
  llm = createServer(async (request, response) => {
    const { model, messages } = await body(request);
    const [system, user] = messages.map((m: { content: string }) => m.content);
    seen.push({ authorization: request.headers.authorization, model, system, user });
    // A translation into French is the French words; into another language, that language's code before the text.
    const into = /^Translate .*"([^"]+)"/.exec(system)?.[1];
    const translation = into === 'fr' ? 'Identifiant des visiteurs' : `${into}: ${user}`;
    const content = request.url !== '/v1/chat/completions' ? '' : into ? translation : 'Remembers the visitor between pages.';
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
  });
  await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
  const { port } = llm.address() as AddressInfo;
  t = await startApp({ env: { LLM_URL: `http://127.0.0.1:${port}/v1`, LLM_MODEL: 'test-model', LLM_API_KEY: 'sk-test' } });
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => llm.close(resolve));
});

async function settled(token: string, id: string) {
  for (let attempt = 0; attempt < 500; attempt++) {
    const res = await call(t.app, 'GET', `/api/v1/storage-items/${id}`, { token });
    if (res.body.data.status !== 'processing') return res.body.data;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('still processing');
}

it('describes what nobody lists and translates what the knowledge says, logging both', async () => {
  const tenant = await createTenant(t.services, 'Llm');
  const token = tenant.tokens.account;
  await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, {
    token: tenant.tokens.partner, body: { account: { default_language: 'fr', ai_features: { autofill: true } } },
  });
  const known = await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: '_ga' } } });
  const unknown = await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: 'zq' } } });

  const english = 'Keeps a random client id that tells one visitor from another in Google Analytics';
  const knownItem = await settled(token, known.body.data.id);
  expect(knownItem).toMatchObject({ description: 'Identifiant des visiteurs', company_name: 'Google Analytics', duration: '2 ans' });
  // In every other language the banner speaks: the knowledge's English, the model's translation of the French for the others.
  expect(knownItem.translations).toEqual({
    en: { description: english, duration: '2 years' },
    ...Object.fromEntries([['de', '2 Jahre'], ['es', '2 años'], ['it', '2 anni'], ['nl', '2 jaar']].map(([code, duration]) => [code, { description: `${code}: Identifiant des visiteurs`, duration }])),
  });
  const unknownItem = await settled(token, unknown.body.data.id);
  expect(unknownItem).toMatchObject({ description: 'Remembers the visitor between pages.', status: 'in_review' });
  expect(unknownItem.translations).toEqual(Object.fromEntries(['en', 'de', 'es', 'it', 'nl'].map((code) => [code, { description: `${code}: Remembers the visitor between pages.` }])));

  const actions = (await call(t.app, 'GET', '/api/v1/ai-actions', { token, query: { limit: '100' } })).body.data;
  expect(actions.find((a: any) => a.actionable_id === unknown.body.data.id && a.action_type === 'translate')).toMatchObject({
    source: 'llm: test-model', suggested_params: { translations: unknownItem.translations }, previous_params: { translations: {} },
  });
  expect(actions.find((a: any) => a.action_type === 'translate' && 'description' in a.suggested_params)).toMatchObject({
    actionable_id: known.body.data.id, source: 'llm: test-model',
    suggested_params: { description: 'Identifiant des visiteurs' },
    previous_params: { description: 'Keeps a random client id that tells one visitor from another in Google Analytics' },
  });
  expect(actions.find((a: any) => a.actionable_id === unknown.body.data.id && a.action_type === 'autofill')).toMatchObject({
    source: 'llm: test-model', suggested_params: { description: 'Remembers the visitor between pages.', status: 'in_review' },
  });
  expect(seen.every((request) => request.authorization === 'Bearer sk-test' && request.model === 'test-model')).toBe(true);
  expect(seen.some((request) => request.system.includes('"fr"') && request.user.includes('"name":"zq"'))).toBe(true);
});
