import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import type { UserPreferences } from '../../db/schema.ts';
import { HyperLogLog } from '../../lib/hyperloglog.ts';
import { DAY_MS } from '../../lib/utc-period.ts';
import { mergeSketches } from '../stats/stats.service.ts';
import { newId } from '../../db/ids.ts';
import { chain, type Hashable } from './consent-chain.ts';
import { findHead } from '../consent-proof/consent-proof.service.ts';
import { storedConsents } from './consents.repository.ts';

const CHUNK = 5_000;

/**
 * The session id of seeded session `k`: 32 hex digits spread like random ones (an MD5 of `k`), as
 * the banner's ids were before they began with their time; a benchmark's new sessions then sort
 * after the seeded ones as a live site's do.
 */
export const seededSessionId = (k: number) => createHash('md5').update(String(k)).digest('hex');

/**
 * Bulk-creates synthetic consents for one account, for benchmarks and capacity tests: `count`
 * consents evenly spread over the last `days` days, one session per five consents, every third
 * with a user id, every tenth with GPC, accept types in turn over the account's categories. They
 * are chained after the account's head exactly as the writer chains them, and the rollups the
 * writer keeps (counts, daily statistics and checkpoints, hourly counts, categories, countries and modes) and the daily visits (two
 * pageviews per consent, the day's sessions as visitors and their sketch) are filled in.
 */
export async function seedConsents(db: Executor, accountId: string, count: number, days = 30): Promise<number> {
  // Nothing to chain: a head row at 0 would read to the writer as another instance's first consent.
  if (count <= 0) return 0;
  const categories = await db.selectFrom('categories').select(['id', 'required']).where('account_id', '=', accountId).orderBy('created_at').execute();
  const required = categories.filter((c) => c.required).map((c) => c.id);
  const optional = categories.filter((c) => !c.required).map((c) => c.id);
  const choices: UserPreferences[] = [
    { accept_type: 'all', accepted_categories: [...required, ...optional], rejected_categories: [], accepted_services: {}, rejected_services: {} },
    { accept_type: 'necessary', accepted_categories: required, rejected_categories: optional, accepted_services: {}, rejected_services: {} },
    {
      accept_type: 'custom', accepted_categories: [...required, ...optional.filter((_, i) => i % 2 === 0)],
      rejected_categories: optional.filter((_, i) => i % 2 === 1), accepted_services: {}, rejected_services: {},
    },
  ];
  const sessions = Math.max(1, Math.floor(count / 5));
  const end = Date.now();
  const start = end - days * DAY_MS;
  const step = (end - start) / count;
  let head = await findHead(db, accountId);
  const sketches = new Map<string, HyperLogLog>();
  for (let done = 0; done < count; done += CHUNK) {
    const size = Math.min(CHUNK, count - done);
    const rows: Hashable[] = [];
    for (let n = done; n < done + size; n++) {
      const createdAt = new Date(Math.floor(start + n * step));
      const sessionId = seededSessionId(n % sessions);
      const day = createdAt.toISOString().slice(0, 10);
      let sketch = sketches.get(day);
      if (!sketch) sketches.set(day, (sketch = new HyperLogLog()));
      sketch.add(sessionId);
      rows.push({
        id: newId(), account_id: accountId, session_id: sessionId, user_id: n % 3 === 0 ? `user-${n % 1000}` : null,
        user_preferences: choices[n % 3], url: 'https://example.com/', user_agent: null, ip_address: null, gpc: n % 10 === 0, created_at: createdAt,
      });
    }
    const links = chain(head, rows);
    const chained = rows.map((c, i) => ({ ...c, ...links[i] }));
    await sql`with ${storedConsents(chained, sql`select ${accountId}::uuid`)} select count(*) from inserted`.execute(db);
    head = { seq: links.at(-1)!.seq, hash: links.at(-1)!.hash };
  }
  const first = new Date(start).toISOString();
  await sql`insert into consent_chain_heads (account_id, seq, hash) values (${accountId}::uuid, ${head.seq}, ${head.hash})
    on conflict (account_id) do update set seq = excluded.seq, hash = excluded.hash`.execute(db);
  await sql`insert into account_consent_counts (account_id, consents) values (${accountId}::uuid, ${count})
    on conflict (account_id) do update set consents = account_consent_counts.consents + excluded.consents`.execute(db);
  await sql`insert into consent_daily_stats as d (account_id, day, consents, accept_all, accept_custom, accept_necessary, gpc, head_seq, head_id, head_hash)
    select account_id, day, count(*), count(*) filter (where accept_type = 'all'), count(*) filter (where accept_type = 'custom'),
      count(*) filter (where accept_type = 'necessary'), count(*) filter (where gpc),
      max(chain_seq), (array_agg(id order by chain_seq desc))[1], encode((array_agg(hash order by chain_seq desc))[1], 'hex')
    from (select account_id, (created_at at time zone 'UTC')::date as day, accept_type, gpc, chain_seq, id, hash
          from consents where account_id = ${accountId}::uuid and created_at >= ${first}::timestamptz and chain_seq > ${head.seq - count}) seeded
    group by account_id, day
    on conflict (account_id, day) do update set consents = d.consents + excluded.consents, accept_all = d.accept_all + excluded.accept_all,
      accept_custom = d.accept_custom + excluded.accept_custom, accept_necessary = d.accept_necessary + excluded.accept_necessary,
      gpc = d.gpc + excluded.gpc, head_seq = excluded.head_seq, head_id = excluded.head_id, head_hash = excluded.head_hash`.execute(db);
  await sql`insert into consent_hourly_counts as h (account_id, hour, consents)
    select account_id, date_trunc('hour', created_at at time zone 'UTC') at time zone 'UTC', count(*)
    from consents where account_id = ${accountId}::uuid and chain_seq > ${head.seq - count} group by 1, 2
    on conflict (account_id, hour) do update set consents = h.consents + excluded.consents`.execute(db);
  await sql`insert into consent_daily_categories as d (account_id, day, category_id, accepted, rejected)
    select account_id, day, category_id, sum(accepted), sum(rejected) from (
      select account_id, (created_at at time zone 'UTC')::date as day, unnest(accepted_categories) as category_id, 1 as accepted, 0 as rejected
        from consent_records where account_id = ${accountId}::uuid and chain_seq > ${head.seq - count}
      union all
      select account_id, (created_at at time zone 'UTC')::date, unnest(rejected_categories), 0, 1
        from consent_records where account_id = ${accountId}::uuid and chain_seq > ${head.seq - count}
    ) choices group by 1, 2, 3
    on conflict (account_id, day, category_id) do update set accepted = d.accepted + excluded.accepted, rejected = d.rejected + excluded.rejected`.execute(db);
  await sql`insert into consent_daily_country_modes as d (account_id, day, country, mode, consents, accept_all, accept_custom, accept_necessary, opt_outs, gpc)
    select account_id, (created_at at time zone 'UTC')::date, coalesce(country, ''), coalesce(mode, ''), count(*),
      count(*) filter (where accept_type = 'all'), count(*) filter (where accept_type = 'custom'), count(*) filter (where accept_type = 'necessary'),
      count(*) filter (where mode = 'opt-out' and cardinality(rejected_categories) > 0), count(*) filter (where gpc)
    from consent_records where account_id = ${accountId}::uuid and chain_seq > ${head.seq - count} group by 1, 2, 3, 4
    on conflict (account_id, day, country, mode) do update set consents = d.consents + excluded.consents,
      accept_all = d.accept_all + excluded.accept_all, accept_custom = d.accept_custom + excluded.accept_custom,
      accept_necessary = d.accept_necessary + excluded.accept_necessary, opt_outs = d.opt_outs + excluded.opt_outs, gpc = d.gpc + excluded.gpc`.execute(db);
  // Every seeded session chose: its visitors are its choosers.
  await sql`insert into account_daily_stats as d (account_id, day, pageviews, visitors, choosers)
    select account_id, (created_at at time zone 'UTC')::date, 2 * count(*), count(distinct session_id), count(distinct session_id)
    from consents where account_id = ${accountId}::uuid and chain_seq > ${head.seq - count} group by 1, 2
    on conflict (account_id, day) do update set pageviews = d.pageviews + excluded.pageviews, visitors = d.visitors + excluded.visitors,
      choosers = d.choosers + excluded.choosers`.execute(db);
  await mergeSketches(db, [...sketches].map(([day, sketch]) => ({ accountId, day, sketch, choosers: sketch })));
  // Sets the visibility map, so that listings walk their offsets in the index alone from the start.
  await sql`vacuum analyze consents`.execute(db);
  return count;
}
