import { sql, type RawBuilder } from 'kysely';
import { LIVE_VISITORS } from '../accounts/accounts.schema.ts';
import type { Executor } from '../../db/kysely.ts';
import type { Selectable } from 'kysely';
import type { ConsentRecordsView, ConsentRow } from '../../db/schema.ts';
import { listPage } from '../../db/list-page.ts';
import type { Sort, Window } from '../../http/pagination.ts';
import { GENESIS } from '../consents/consents.service.ts';
import { filtered, ofSession } from '../consents/consents.service.ts';
import { fromStored, hex as hexOf } from '../consents/consents.service.ts';
import type { ConsentFilters } from '../consents/consents.schema.ts';

export interface ChainPoint {
  seq: number;
  hash: string;
}

/** Where verification starts: the last consent removed by retention (or the chain's start). */
export async function findAnchor(db: Executor, accountId: string): Promise<ChainPoint> {
  const row = await db.selectFrom('consent_chain_anchors').select(['seq', 'hash']).where('account_id', '=', accountId).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: row.hash } : { seq: 0, hash: GENESIS };
}

/** The chain's last link as the writers last stored it. */
export async function findHead(db: Executor, accountId: string): Promise<ChainPoint> {
  const row = await db.selectFrom('consent_chain_heads').select(['seq', 'hash']).where('account_id', '=', accountId).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: row.hash } : { seq: 0, hash: GENESIS };
}

/** A consent written around the writer (outside the chain), if there is one. */
export async function findUnchained(db: Executor, accountId: string): Promise<string | undefined> {
  const row = await db.selectFrom('consents').select('id').where('account_id', '=', accountId).where('chain_seq', '<', 0)
    .orderBy('chain_seq', 'desc').limit(1).executeTakeFirst();
  return row?.id;
}

/** How much one read of consents may take: at most `rows` of them, and `bytes` (the first one always). */
export interface PageLimits {
  rows: number;
  bytes: number;
}

/**
 * An upper bound of the bytes a consent of the account takes once read or exported, from sizes
 * PostgreSQL knows without reading its lists: its choice's lists twice (CSV doubles their quotes),
 * each of its categories' names twice at the account's longest, its personal texts six times (JSON
 * writes a control character in six bytes), its country, region and GPP string once (letters,
 * digits and `-_.~` as the API takes them: nothing to escape or quote), and 720 for the fixed fields
 * (80 of them the names of those three and of the mode, the mode, and their quotes).
 */
const rowBytes = (accountId: string) => sql<number>`(2 * coalesce(choice_bytes, 0) + 720
  + 2 * coalesce(choice_categories, 0) * (select coalesce(max(octet_length(name)), 0) + 16 from categories where account_id = ${accountId})
  + 6 * (octet_length(session_id) + coalesce(octet_length(user_id), 0) + coalesce(octet_length(url), 0) + coalesce(octet_length(user_agent), 0))
  + coalesce(octet_length(country), 0) + coalesce(octet_length(region), 0) + coalesce(octet_length(gpp_string), 0)
  + coalesce(octet_length(notice_hash), 0) + 16)`;

/**
 * The part of `candidates` (a CTE of rows with `bytes`, in the order `order`) that fits in `bytes`:
 * the rows whose predecessors together take less. A consent's lists can be tens of kilobytes
 * (consents recorded before their size was bounded, as much as a body may hold), so a page is
 * bounded by bytes as well as by rows, or thousands of them make one string past what Node holds.
 */
const fitting = (order: RawBuilder<unknown>, bytes: number) =>
  sql`(select * from (select *, sum(bytes) over (order by ${order} rows unbounded preceding) - bytes as before from candidates) c
    where before < ${bytes})`;

/**
 * The next consents of the chain after `afterSeq`, in chain order (keyset, on the chain's index),
 * within `limits`; `more` when the chain may go on past them.
 */
export async function chainPage(db: Executor, accountId: string, afterSeq: number, limits: PageLimits): Promise<{ rows: ConsentRow[]; more: boolean }> {
  const candidates = db.selectFrom('consent_records').select(['chain_seq', rowBytes(accountId).as('bytes')])
    .where('account_id', '=', accountId).where('chain_seq', '>', afterSeq).orderBy('chain_seq').limit(limits.rows);
  const { rows } = await sql<Selectable<ConsentRecordsView> & { candidates: number }>`with candidates as (${candidates}),
      taken as ${fitting(sql`chain_seq`, limits.bytes)}
    select r.*, (select count(*)::int from candidates) as candidates from consent_records r
    where account_id = ${accountId} and chain_seq > ${afterSeq} and chain_seq <= (select max(chain_seq) from taken)
    order by chain_seq`.execute(db);
  const candidateCount = rows.length === 0 ? 0 : Number(rows[0].candidates);
  return { rows: rows.map(fromStored), more: rows.length < candidateCount || candidateCount === limits.rows };
}

const iso = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One CSV field: empty for null; quoted when it holds a comma, a quote or a line break; a leading formula sign defused. */
function csvField(value: RawBuilder<unknown>): RawBuilder<string> {
  const text = sql`(${value})::text`;
  const guarded = sql`(case when ${text} ~ '^[-=+@\t\r]' then '''' || ${text} else ${text} end)`;
  return sql<string>`(case when ${text} is null then '' when ${guarded} ~ '[",\r\n]' then '"' || replace(${guarded}, '"', '""') || '"' else ${guarded} end)`;
}

/** A service map's JSON as a CSV field: `{}`, or quoted (a map's keys are quoted, and JSON never starts with a formula sign). */
const csvMap = (json: RawBuilder<string>) => sql<string>`(case when ${json} = '{}' then '{}' else '"' || replace(${json}, '"', '""') || '"' end)`;

const categoryList = (column: string) => sql`array_to_string(${sql.ref(column)}, ' ')`;
/** A list's category names for a person, in the list's order, joined by '; '; a category deleted since reads "(deleted)". */
const categoryNames = (column: string) => sql`(select string_agg(coalesce(c.name, '(deleted)'), '; ' order by u.n)
  from unnest(${sql.ref(column)}) with ordinality as u(id, n)
  left join categories c on c.id = u.id and c.account_id = consent_records.account_id)`;
const services = (column: string) => sql`coalesce(${sql.ref(column)}, '{}'::jsonb)`;
const hex = (column: string) => sql`encode(${sql.ref(column)}, 'hex')`;

/**
 * A consent's service maps as text, once a row: a CSV field names its value several times, and
 * converting maps of tens of kilobytes again for each made CSV twenty times slower than NDJSON
 * (`offset 0` keeps the planner from putting the expressions back in their place).
 */
const servicesText = sql`select ${services('accepted_services')}::text as accepted_services_text,
  ${services('rejected_services')}::text as rejected_services_text offset 0`;

/** A consent as one exported line, built by PostgreSQL: the driver and the event loop only pass text on. */
function exportLine(format: 'csv' | 'ndjson'): RawBuilder<string> {
  if (format === 'ndjson') {
    return sql<string>`json_build_object('id', id, 'created_at', ${iso('created_at')}, 'session_id', session_id, 'user_id', user_id,
      'user_preferences', json_build_object('accept_type', accept_type,
        'accepted_categories', coalesce(accepted_categories, '{}'), 'rejected_categories', coalesce(rejected_categories, '{}'),
        'accepted_services', ${services('accepted_services')}, 'rejected_services', ${services('rejected_services')}),
      'url', url, 'user_agent', user_agent, 'ip_address', ip_address, 'gpc', gpc,
      'country', country, 'region', region, 'mode', mode, 'gpp_string', gpp_string, 'notice_hash', notice_hash,
      'chain_seq', chain_seq, 'hash', ${hex('hash')}, 'personal_hash', ${hex('personal_hash')}, 'erased_at', ${iso('erased_at')})::text || E'\n'`;
  }
  // Only the fields a visitor, a client or a person wrote (the category names) can hold a comma, a
  // quote or a formula sign; the others (ids, times, hashes, numbers, the accept type, the mode, the
  // category ids) are written as they are. The columns added later come last, so that a reader of
  // the earlier columns by position reads them still.
  const plain = (value: RawBuilder<unknown>) => sql`coalesce((${value})::text, '')`;
  const fields = [
    plain(sql`id`), plain(iso('created_at')), csvField(sql`session_id`), csvField(sql`user_id`), plain(sql`accept_type`),
    plain(categoryList('accepted_categories')), csvField(categoryNames('accepted_categories')),
    plain(categoryList('rejected_categories')), csvField(categoryNames('rejected_categories')),
    csvMap(sql`accepted_services_text`), csvMap(sql`rejected_services_text`), csvField(sql`url`),
    csvField(sql`user_agent`), plain(sql`ip_address`), plain(sql`gpc`), plain(sql`chain_seq`), plain(hex('hash')), plain(hex('personal_hash')),
    plain(iso('erased_at')), csvField(sql`country`), csvField(sql`region`), plain(sql`mode`), csvField(sql`gpp_string`), plain(sql`notice_hash`),
  ];
  return sql<string>`concat_ws(',', ${sql.join(fields)}) || E'\n'`;
}

export interface ExportCursor {
  /** The last row's time as PostgreSQL wrote it (full precision) and its id. */
  created_at: string;
  id: string;
}

/**
 * The next consents matching the list's filters after the cursor, oldest first, within `limits`, as
 * one text of lines, with the cursor of the last one (undefined when there were none); `more` when
 * others may follow.
 */
export async function exportPage(
  db: Executor,
  accountId: string,
  filters: ConsentFilters,
  after: ExportCursor | undefined,
  limits: PageLimits,
  format: 'csv' | 'ndjson',
): Promise<{ text: string; rows: number; more: boolean; last: ExportCursor | undefined }> {
  let candidates = filtered(db, accountId, filters, 'consent_records').select(['id', 'created_at', rowBytes(accountId).as('bytes')]);
  if (after) {
    // A row comparison, so that the page starts inside the (account_id, created_at, id) index.
    candidates = candidates.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(sql<Date>`${after.created_at}::timestamptz`, after.id)));
  }
  const { rows: [row] } = await sql<{ candidates: number; rows: number; text: string | null; last_created: string | null; last_id: string | null }>`
    with candidates as (${candidates.orderBy('created_at').orderBy('id').limit(limits.rows)}),
      taken as ${fitting(sql`created_at, id`, limits.bytes)}
    select (select count(*)::int from candidates) as candidates, count(*)::int as rows,
      string_agg(line, '' order by created_at, id) as text,
      (array_agg(created_text order by created_at desc, id desc))[1] as last_created,
      (array_agg(id order by created_at desc, id desc))[1] as last_id
    from (select ${exportLine(format)} as line, created_at, id, created_at::text as created_text from consent_records
      cross join lateral (${servicesText}) texts
      where account_id = ${accountId} and id in (select id from taken)) page`.execute(db);
  const rows = Number(row.rows);
  const candidateCount = Number(row.candidates);
  return {
    text: row.text ?? '',
    rows,
    more: rows < candidateCount || candidateCount === limits.rows,
    last: row.last_created && row.last_id ? { created_at: row.last_created, id: row.last_id } : undefined,
  };
}

/** A visitor's own consent: the id and the session both match. */
export async function findVisitorConsent(db: Executor, accountId: string, id: string, sessionId: string): Promise<ConsentRow | undefined> {
  const row = await db.selectFrom('consent_records').selectAll().where('account_id', '=', accountId).where('id', '=', id)
    .where('session_id', '=', sessionId).where('erased_at', 'is', null).executeTakeFirst();
  return row && fromStored(row);
}

/** The daily checkpoints (each day's last link) between two UTC days, inclusive. */
export async function listCheckpoints(db: Executor, accountId: string, from: string, to: string) {
  return db.selectFrom('consent_daily_stats').select(['day', 'head_seq', 'head_id', 'head_hash', 'consents'])
    .where('account_id', '=', accountId).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`).where('head_hash', 'is not', null)
    .orderBy('day').execute();
}

/**
 * Clears the personal fields of a subject's consents (the row, its hashes and its choice stay) and
 * forgets the subject's sessions as visitors. Answers how many consents were erased.
 */
export async function eraseSubject(db: Executor, accountId: string, field: 'user_id' | 'session_id', value: string): Promise<number> {
  const subject = field === 'session_id' ? ofSession(accountId, value) : sql`user_id = ${value}`;
  const result = await sql<{ erased: number; sessions: string[] }>`with target as (
      select id, session_id from consents where account_id = ${accountId} and ${subject} and erased_at is null for update
    ), erased as (
      update consents c set session_id = '', user_id = null, ip_address = null, user_agent = null, url = null,
        personal_salt = null, erased_at = now()
      from target where c.id = target.id
      returning c.id
    ), forgotten as (
      delete from account_recent_visitors where account_id = ${accountId} and session_id in (select session_id from target)
    )
    select (select count(*)::int from erased) as erased, coalesce((select array_agg(distinct session_id) from target), '{}') as sessions`.execute(db);
  const { erased, sessions } = result.rows[0];
  // The sessions kept for the onboarding status are only the latest few: put back, from the
  // account's most recent consents, the visitors the erased ones displaced (never an erased
  // session, though another of its consents stays), so that erasing one visitor does not take a
  // live account's other visitors out of the count.
  await sql`insert into account_recent_visitors (account_id, session_id, last_seen_at)
    select ${accountId}::uuid, session_id, max(created_at) from (
      select session_id, created_at from consents
      where account_id = ${accountId} and erased_at is null and created_at > now() - interval '30 days'
        and session_id <> all(${sessions}::text[])
      order by created_at desc limit ${LIVE_VISITORS * 20}
    ) recent
    group by session_id order by max(created_at) desc limit ${LIVE_VISITORS}
    on conflict (account_id, session_id) do nothing`.execute(db);
  return erased;
}

export async function insertErasure(
  db: Executor,
  entry: { id: string; account_id: string; subject_type: 'user_id' | 'session_id'; subject_hash: string; consents: number; erased_by_type: string; erased_by_id: string | null },
) {
  return db.insertInto('consent_erasures').values(entry).returningAll().executeTakeFirstOrThrow();
}

/** A page of the account's erasure log, optionally of one subject (by the SHA-256 of its identifier). */
export async function listErasures(
  db: Executor, accountId: string, subject: { type: 'user_id' | 'session_id'; hash: string } | undefined, sort: Sort<'created_at'>, window: Window,
) {
  let scoped = db.selectFrom('consent_erasures').where('account_id', '=', accountId);
  if (subject) scoped = scoped.where('subject_type', '=', subject.type).where('subject_hash', '=', subject.hash);
  return listPage(scoped, (q) => q.selectAll().orderBy('created_at', sort.order).orderBy('id', sort.order), window);
}

/** Accounts holding consents older than their retention, with that retention. */
export async function accountsPastRetention(db: Executor): Promise<{ id: string; consent_retention_days: number }[]> {
  return db.selectFrom('accounts').select(['id', 'consent_retention_days'])
    .where(({ exists, selectFrom }) => exists(selectFrom('consents').select(sql.lit(1).as('one'))
      .whereRef('consents.account_id', '=', 'accounts.id')
      .where('consents.created_at', '<', sql<Date>`now() - make_interval(days => accounts.consent_retention_days)`)))
    .execute();
}

/**
 * Removes, in one transaction the caller owns, the oldest consents of the chain that are older than
 * `cutoff` (at most `limit`, stopping at the first younger one), moves the anchor to the last one
 * removed and lowers the account's counter and what its days and hours hold (`removed`, which
 * listings' counts read). Null when another instance holds the account.
 */
export async function removeOldest(db: Executor, accountId: string, cutoff: Date, limit: number): Promise<number | null> {
  const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(${`consentry:retention:${accountId}`})) as locked`.execute(db);
  if (!lock.rows[0].locked) return null;
  const oldest = await db.selectFrom('consents').select(['chain_seq', 'hash', 'created_at']).where('account_id', '=', accountId)
    .where('chain_seq', '>', 0).orderBy('chain_seq').limit(limit).execute();
  const expired = oldest.findIndex((row) => row.created_at >= cutoff);
  const removed = expired === -1 ? oldest : oldest.slice(0, expired);
  if (removed.length === 0) return 0;
  const last = removed.at(-1)!;
  await db.deleteFrom('consents').where('account_id', '=', accountId).where('chain_seq', '>', 0)
    .where('chain_seq', '<=', last.chain_seq).execute();
  const lastHash = hexOf(last.hash);
  if (lastHash !== null) {
    // Consents older than the chain (no hash) leave the anchor where the chain starts.
    await db.insertInto('consent_chain_anchors').values({ account_id: accountId, seq: last.chain_seq, hash: lastHash, updated_at: new Date() })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ seq: last.chain_seq, hash: lastHash, updated_at: new Date() }))
      .execute();
  }
  await db.updateTable('account_consent_counts').set((eb) => ({ consents: eb('consents', '-', removed.length) }))
    .where('account_id', '=', accountId).execute();
  const perDay = new Map<string, number>();
  const perHour = new Map<string, number>();
  for (const row of removed) {
    const hour = `${row.created_at.toISOString().slice(0, 13)}:00:00Z`;
    perDay.set(hour.slice(0, 10), (perDay.get(hour.slice(0, 10)) ?? 0) + 1);
    perHour.set(hour, (perHour.get(hour) ?? 0) + 1);
  }
  await sql`update consent_daily_stats d set removed = d.removed + gone.n
    from unnest(${[...perDay.keys()]}::date[], ${[...perDay.values()]}::int[]) as gone(day, n)
    where d.account_id = ${accountId} and d.day = gone.day`.execute(db);
  await sql`update consent_hourly_counts h set removed = h.removed + gone.n
    from unnest(${[...perHour.keys()]}::timestamptz[], ${[...perHour.values()]}::int[]) as gone(hour, n)
    where h.account_id = ${accountId} and h.hour = gone.hour`.execute(db);
  return removed.length;
}
