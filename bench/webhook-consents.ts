/**
 * What the `consent.recorded` webhook costs the consent writer (`npm run bench:webhook-consents`):
 * consents written through the real ConsentWriter, in rounds that take turns between
 * - `before`: the writer as it was, without the webhook check (no `wantsWebhook`);
 * - `no webhook`: the check in place and the account without an endpoint (a set lookup; the statement unchanged);
 * - `webhook`: the account with one, so the batch statement also queues every consent for it.
 * On PostgreSQL when DATABASE_URL is set (a fresh schema, dropped afterwards), else the embedded database.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/db/ids.ts';
import { ConsentWriter } from '../src/modules/consents/consent-writer.ts';
import type { NewConsent } from '../src/db/schema.ts';
import { createServices } from '../src/services.ts';
import { createTenant } from '../test/helpers/tenants.ts';

const CONSENTS = Number(process.env.BENCH_CONSENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);
const IN_FLIGHT = 200;

const schema = `bench_${randomBytes(4).toString('hex')}`;
const dataDir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
const config = loadConfig({ DATABASE_URL: process.env.DATABASE_URL ?? '', DATABASE_SCHEMA: process.env.DATABASE_URL ? schema : undefined, DATA_DIR: dataDir, LOG_LEVEL: 'silent', SCAN_CONCURRENCY: '0' });
const services = await createServices(config);
const tenant = await createTenant(services, 'Bench');
const accountId = tenant.account.id;

async function run(wants: ((id: string) => boolean) | undefined): Promise<number> {
  const writer = new ConsentWriter(services.connection, { maxBatch: 500, maxQueue: 1_000_000, concurrency: 1, ...(wants && { wantsWebhook: wants }) });
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < CONSENTS) {
      next++;
      const consent: NewConsent = {
        id: newId(), account_id: accountId, session_id: randomBytes(8).toString('hex'), user_id: null,
        user_preferences: { accept_type: 'necessary', accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} },
        url: null, user_agent: null, ip_address: null, gpc: false, created_at: new Date(),
      };
      await writer.write(consent);
    }
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await writer.close();
  return CONSENTS / seconds;
}

const variants: [string, ((id: string) => boolean) | undefined][] = [
  ['before', undefined],
  ['no webhook', (id) => id === 'another account'],
  ['webhook', (id) => id === accountId],
];
const results = new Map<string, number[]>(variants.map(([name]) => [name, []]));
await run(undefined); // warm-up: connections, prepared statements, the account's chain head
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, wants] of variants) results.get(name)!.push(await run(wants));
  await services.db.deleteFrom('webhook_consent_queue').execute();
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(`engine: ${services.engine}, ${CONSENTS} consents per run, ${ROUNDS} rounds, ${IN_FLIGHT} in flight`);
for (const [name, list] of results) console.log(`${name.padEnd(12)} median ${Math.round(median(list))} consents/s   runs: ${list.map(Math.round).join(', ')}`);
if (process.env.DATABASE_URL) await sql`drop schema ${sql.id(schema)} cascade`.execute(services.db);
await services.close();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
