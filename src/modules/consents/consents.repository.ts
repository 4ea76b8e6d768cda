import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Executor } from '../../db/kysely.ts';
import type { ConsentRecordsView, ConsentRow, NewConsent, UserPreferences } from '../../db/schema.ts';
import type { Sort, Window } from '../../http/pagination.ts';
import { countOf, filtered, skippedPage } from './consent-filters.ts';
import type { ConsentFilters } from './consents.schema.ts';
import { queuedConsents } from '../webhooks/webhooks.service.ts';

export type { NewConsent } from '../../db/schema.ts';

/** The last link of an account's chain. */
export interface Head {
  seq: number;
  hash: string;
}

/** A consent with its place in its account's chain. */
export interface ChainedConsent extends NewConsent {
  seq: number;
  hash: string;
  personal_hash: string;
  personal_salt: string;
}

/** One account's consents of one UTC day in a batch, and the day's last link. */
export interface DailyRollup {
  account_id: string;
  day: string;
  consents: number;
  all: number;
  custom: number;
  necessary: number;
  gpc: number;
  head_seq: number;
  head_id: string;
  head_hash: string;
}

/** How many consents a batch holds of one account and UTC hour (`hour`: its start, ISO). */
export interface HourlyCount {
  account_id: string;
  hour: string;
  consents: number;
}

/** How often a batch accepted and rejected one category of one account on one UTC day. */
export interface CategoryRollup {
  account_id: string;
  day: string;
  category_id: string;
  accepted: number;
  rejected: number;
}

/** One account's consents of one UTC day, country and mode in a batch (`''`: unknown country, no mode). */
export interface CountryModeRollup {
  account_id: string;
  day: string;
  country: string;
  mode: string;
  consents: number;
  all: number;
  custom: number;
  necessary: number;
  opt_outs: number;
  gpc: number;
}

/** A batch of the consent writer: its accounts (sorted), their heads before and after, rows and rollups. */
export interface ConsentBatch {
  accounts: string[];
  expected: Head[];
  heads: Head[];
  rows: ChainedConsent[];
  daily: DailyRollup[];
  hourly: HourlyCount[];
  choices: CategoryRollup[];
  places: CountryModeRollup[];
  /** Accounts whose first install may not be recorded yet. */
  fresh: string[];
  /** Accounts with a `consent.recorded` webhook: their stored consents are queued for it in the same statement. */
  webhooks?: string[];
}

/** Bytes of a `bytea` column (a Buffer from node-postgres, a Uint8Array from PGlite) in hex. */
export const hex = (bytes: Uint8Array | null): string | null => (bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'));

type StoredPreferences = Pick<Selectable<ConsentRecordsView>, 'accept_type' | 'accepted_categories' | 'rejected_categories' | 'accepted_services' | 'rejected_services'>;

/** The preferences document of a stored consent (its columns; an empty list or map is stored as null). */
function preferencesOf(row: StoredPreferences): UserPreferences {
  return {
    accept_type: row.accept_type,
    accepted_categories: row.accepted_categories ?? [],
    rejected_categories: row.rejected_categories ?? [],
    accepted_services: row.accepted_services ?? {},
    rejected_services: row.rejected_services ?? {},
  };
}

/** A stored consent as the API and the chain see it: the preferences as one document, the hashes in hex. */
export function fromStored(row: Selectable<ConsentRecordsView>): ConsentRow {
  return {
    id: row.id, account_id: row.account_id, session_id: row.session_id, user_id: row.user_id,
    user_preferences: preferencesOf(row),
    url: row.url, user_agent: row.user_agent, ip_address: row.ip_address, gpc: row.gpc, created_at: row.created_at,
    chain_seq: Number(row.chain_seq), hash: hex(row.hash), personal_hash: hex(row.personal_hash), personal_salt: hex(row.personal_salt),
    erased_at: row.erased_at, country: row.country, region: row.region, mode: row.mode, gpp_string: row.gpp_string, notice_hash: row.notice_hash,
  };
}

/** A list of ids as a PostgreSQL array literal (ids are UUIDs: nothing to quote); null when empty. */
const idList = (ids: string[]) => (ids.length === 0 ? null : `{${ids.join(',')}}`);
const services = (map: Record<string, string[]>) => (Object.keys(map).length === 0 ? null : JSON.stringify(map));

/** A distinct choice of a batch: its account and its four lists as the statement takes them. */
interface SentChoice {
  account_id: string;
  lists: [string | null, string | null, string | null, string | null];
}

/**
 * The distinct choices of a batch's rows (per account), and each row's place among them (from 1;
 * null for a row whose lists are all empty, which has no choice). Visitors make a handful of
 * distinct choices: the database then hashes and looks up a few choices per batch, not every row.
 */
function batchChoices(rows: ChainedConsent[]): { choices: SentChoice[]; places: (number | null)[] } {
  const found = new Map<string, number>();
  const choices: SentChoice[] = [];
  const places = rows.map((row) => {
    const p = row.user_preferences;
    const lists: SentChoice['lists'] = [idList(p.accepted_categories), idList(p.rejected_categories), services(p.accepted_services), services(p.rejected_services)];
    if (lists.every((list) => list === null)) return null;
    const key = row.account_id + JSON.stringify(lists);
    let place = found.get(key);
    if (place === undefined) {
      choices.push({ account_id: row.account_id, lists });
      found.set(key, (place = choices.length));
    }
    return place;
  });
  return { choices, places };
}

/** The SHA-256 a choice is found by: its four lists as one jsonb array (the same in the migration that made it). */
const CHOICE_DIGEST = sql`sha256(convert_to(jsonb_build_array(accepted_categories, rejected_categories, accepted_services, rejected_services)::text, 'UTF8'))`;

/**
 * The common table expressions that store chained consents of the accounts `accounts` (a subquery)
 * lists, ending with `inserted` (each stored row's account). Every list goes as one array per
 * column, so that a statement's text, and its plan, is the same for every number of rows; category
 * lists go as array literals (an array of arrays would be flattened), hashes as hex.
 * - Each consent's lists are stored once per account and distinct choice (`consent_choices`). The
 *   batch sends its distinct choices once (`batchChoices`); those the account already has are
 *   found by digest, new ones are added, and each row takes its choice's id by its place. Two
 *   transactions never add one account's choice at once, as the account's chain head row orders
 *   its batches; were they to, `do update` answers the row the other added, where `do nothing`
 *   would answer none and leave the consent without its lists.
 * - The rows are inserted in chain order, as they come (no join reorders them): in another order,
 *   the indexes on the chain, the time and the id (all rising with it) split their pages in the
 *   middle instead of at the end, and took 25–30% more bytes at 10,000,000 consents.
 */
export function storedConsents(rows: ChainedConsent[], accounts: RawBuilder<unknown>): RawBuilder<unknown> {
  const { choices, places } = batchChoices(rows);
  const list = (n: number) => choices.map((c) => c.lists[n]);
  return sql`choice_list as (
      select place, account_id, accepted_categories, rejected_categories, accepted_services, rejected_services, ${CHOICE_DIGEST} as digest
      from (select place, account_id, accepted::uuid[] as accepted_categories, rejected::uuid[] as rejected_categories, accepted_services, rejected_services
        from unnest(${choices.map((c) => c.account_id)}::uuid[], ${list(0)}::text[], ${list(1)}::text[], ${list(2)}::jsonb[], ${list(3)}::jsonb[]
        ) with ordinality as u(account_id, accepted, rejected, accepted_services, rejected_services, place)) sent
    ), known_choices as (
      select c.place, ch.id from choice_list c join consent_choices ch on ch.account_id = c.account_id and ch.digest = c.digest
      where c.account_id in (${accounts})
    ), added_choices as (
      insert into consent_choices (account_id, digest, accepted_categories, rejected_categories, accepted_services, rejected_services)
      select distinct on (account_id, digest) account_id, digest, accepted_categories, rejected_categories, accepted_services, rejected_services
      from choice_list c where c.account_id in (${accounts}) and not exists (select 1 from known_choices k where k.place = c.place)
      order by account_id, digest
      on conflict (account_id, digest) do update set digest = excluded.digest
      returning id, account_id, digest
    ), choice_ids(ids) as (
      select array_agg(coalesce(k.id, a.id) order by c.place) from choice_list c
        left join known_choices k on k.place = c.place
        left join added_choices a on a.account_id = c.account_id and a.digest = c.digest
    ), inserted as (
      insert into consents (id, account_id, session_id, user_id, accept_type, choice_id, url, user_agent, ip_address, gpc, created_at,
        chain_seq, hash, personal_hash, personal_salt, country, region, mode, gpp_string, notice_hash)
      select id, account_id, session_id, user_id, accept_type, (select ids from choice_ids)[place], url, user_agent, ip_address, gpc, created_at,
        chain_seq, decode(hash, 'hex'), decode(personal_hash, 'hex'), decode(personal_salt, 'hex'), country, region, mode, gpp_string, notice_hash
      from unnest(
        ${rows.map((c) => c.id)}::uuid[], ${rows.map((c) => c.account_id)}::uuid[], ${rows.map((c) => c.session_id)}::text[],
        ${rows.map((c) => c.user_id)}::text[], ${rows.map((c) => c.user_preferences.accept_type)}::text[], ${places}::int[],
        ${rows.map((c) => c.url)}::text[], ${rows.map((c) => c.user_agent)}::text[], ${rows.map((c) => c.ip_address)}::text[],
        ${rows.map((c) => c.gpc)}::boolean[], ${rows.map((c) => c.created_at.toISOString())}::timestamptz[],
        ${rows.map((c) => c.seq)}::bigint[], ${rows.map((c) => c.hash)}::text[],
        ${rows.map((c) => c.personal_hash)}::text[], ${rows.map((c) => c.personal_salt)}::text[],
        ${rows.map((c) => c.country ?? null)}::text[], ${rows.map((c) => c.region ?? null)}::text[],
        ${rows.map((c) => c.mode ?? null)}::text[], ${rows.map((c) => c.gpp_string ?? null)}::text[],
        ${rows.map((c) => c.notice_hash ?? null)}::text[]
      ) as row(id, account_id, session_id, user_id, accept_type, place, url, user_agent, ip_address, gpc, created_at, chain_seq, hash, personal_hash, personal_salt,
        country, region, mode, gpp_string, notice_hash)
      where account_id in (${accounts})
      returning account_id
    )`;
}

/** The chain heads of these accounts (an account without consents has none). */
export async function readChainHeads(db: Executor, accounts: string[]): Promise<Map<string, Head>> {
  return headsOf(await db.selectFrom('consent_chain_heads').select(['account_id', 'seq', 'hash']).where('account_id', 'in', accounts).execute());
}

/**
 * The chain heads of these accounts, locked until the transaction `execute` runs in ends. Locked
 * in account order, so that two writers locking the same accounts never deadlock.
 */
export async function lockChainHeads(db: Pick<Db, 'kysely'>, execute: Db['executePrepared'], accounts: string[]): Promise<Map<string, Head>> {
  const statement = sql<Head & { account_id: string }>`select account_id, seq, hash from consent_chain_heads
    where account_id = any(${accounts}::uuid[]) order by account_id for update`;
  return headsOf(await execute(statement.compile(db.kysely)));
}

const headsOf = (rows: Array<{ account_id: string; seq: number | string; hash: string }>) =>
  new Map(rows.map((row) => [row.account_id, { seq: Number(row.seq), hash: row.hash }]));

/** One array parameter per field of the list's items, cast to its PostgreSQL type, in order: what `unnest` takes. */
const arraysOf = <T>(list: T[], fields: [keyof T, string][]) =>
  sql.join(fields.map(([field, type]) => sql`${list.map((item) => item[field])}::${sql.raw(type)}[]`));

/** `column = d.column + excluded.column` for each count: what a rollup row `d` adds of a batch's. */
const addedUp = (columns: string[]) => sql.raw(columns.map((column) => `${column} = d.${column} + excluded.${column}`).join(', '));

/**
 * One statement, so one round trip and one implicit transaction: the chain heads advanced by
 * compare-and-set, the rows of the accounts whose head advanced (passed as arrays, so that the
 * statement's text, and its plan, is the same for every batch size: prepared once per
 * connection), the account counters, the daily rollups and checkpoints, the hourly counts, the per-category choices,
 * the per-country-and-mode counts and the first-install fact. Answers the accounts whose rows were stored: an account another
 * writer moved the head of meanwhile stored nothing and is chained again by the caller.
 */
export async function insertConsentBatch(db: Pick<Db, 'kysely' | 'executePrepared'>, batch: ConsentBatch): Promise<Set<string>> {
  const { accounts, expected, heads, rows, daily, hourly, choices, places, fresh, webhooks = [] } = batch;
  // Only a batch with an account that has a consent.recorded webhook carries the queueing: every
  // other batch is the same statement as without webhooks (and the same prepared plan).
  const queued = webhooks.length === 0
    ? sql``
    : sql`, ${queuedConsents(rows.map((c) => c.id), rows.map((c) => c.account_id), webhooks, sql`select account_id from stored`)}`;
  const statement = sql<{ account_id: string }>`with expected(account_id, seq, hash, new_seq, new_hash) as (
        select * from unnest(${accounts}::uuid[], ${expected.map((h) => h.seq)}::bigint[], ${expected.map((h) => h.hash)}::text[],
          ${heads.map((h) => h.seq)}::bigint[], ${heads.map((h) => h.hash)}::text[])
      ), advanced as (
        insert into consent_chain_heads as head (account_id, seq, hash)
        select account_id, new_seq, new_hash from expected where seq = 0 order by account_id
        on conflict (account_id) do nothing
        returning account_id
      ), moved as (
        update consent_chain_heads as head set seq = expected.new_seq, hash = expected.new_hash
        from expected where head.account_id = expected.account_id and expected.seq > 0
          and head.seq = expected.seq and head.hash = expected.hash
        returning head.account_id
      ), stored(account_id) as (
        select account_id from advanced union all select account_id from moved
      ), ${storedConsents(rows, sql`select account_id from stored`)}, counted as (
        insert into account_consent_counts (account_id, consents)
        select account_id, count(*) from inserted group by account_id order by account_id
        on conflict (account_id) do update set consents = account_consent_counts.consents + excluded.consents
      ), daily as (
        insert into consent_daily_stats as d (account_id, day, consents, accept_all, accept_custom, accept_necessary, gpc, head_seq, head_id, head_hash)
        select * from unnest(
          ${daily.map((d) => d.account_id)}::uuid[], ${daily.map((d) => d.day)}::date[], ${daily.map((d) => d.consents)}::int[],
          ${daily.map((d) => d.all)}::int[], ${daily.map((d) => d.custom)}::int[], ${daily.map((d) => d.necessary)}::int[],
          ${daily.map((d) => d.gpc)}::int[], ${daily.map((d) => d.head_seq)}::bigint[], ${daily.map((d) => d.head_id)}::uuid[],
          ${daily.map((d) => d.head_hash)}::text[]
        ) as row(account_id) where row.account_id in (select account_id from stored)
        on conflict (account_id, day) do update set ${addedUp(['consents', 'accept_all', 'accept_custom', 'accept_necessary', 'gpc'])},
          head_id = case when excluded.head_seq > d.head_seq then excluded.head_id else d.head_id end,
          head_hash = case when excluded.head_seq > d.head_seq then excluded.head_hash else d.head_hash end,
          head_seq = greatest(d.head_seq, excluded.head_seq)
      ), hourly as (
        insert into consent_hourly_counts as h (account_id, hour, consents)
        select * from unnest(${hourly.map((h) => h.account_id)}::uuid[], ${hourly.map((h) => h.hour)}::timestamptz[], ${hourly.map((h) => h.consents)}::int[])
          as row(account_id) where row.account_id in (select account_id from stored)
        on conflict (account_id, hour) do update set consents = h.consents + excluded.consents
      ), chosen as (
        insert into consent_daily_categories as d (account_id, day, category_id, accepted, rejected)
        select * from unnest(
          ${choices.map((c) => c.account_id)}::uuid[], ${choices.map((c) => c.day)}::date[], ${choices.map((c) => c.category_id)}::uuid[],
          ${choices.map((c) => c.accepted)}::int[], ${choices.map((c) => c.rejected)}::int[]
        ) as row(account_id) where row.account_id in (select account_id from stored)
        on conflict (account_id, day, category_id) do update set
          accepted = d.accepted + excluded.accepted, rejected = d.rejected + excluded.rejected
      ), placed as (
        insert into consent_daily_country_modes as d (account_id, day, country, mode, consents, accept_all, accept_custom, accept_necessary, opt_outs, gpc)
        select * from unnest(${arraysOf(places, [['account_id', 'uuid'], ['day', 'date'], ['country', 'text'], ['mode', 'text'],
          ['consents', 'int'], ['all', 'int'], ['custom', 'int'], ['necessary', 'int'], ['opt_outs', 'int'], ['gpc', 'int']])})
          as row(account_id) where row.account_id in (select account_id from stored)
        on conflict (account_id, day, country, mode) do update set
          ${addedUp(['consents', 'accept_all', 'accept_custom', 'accept_necessary', 'opt_outs', 'gpc'])}
      ), installed as (
        update accounts set code_installed_at = now() where id = any(${fresh}::uuid[]) and code_installed_at is null
      )${queued}
      select account_id from stored`;
  const result = await db.executePrepared<{ account_id: string }>(statement.compile(db.kysely));
  return new Set(result.map((row) => row.account_id));
}

const LISTED = ['id', 'account_id', 'session_id', 'user_id', 'accept_type', 'accepted_categories', 'rejected_categories',
  'accepted_services', 'rejected_services', 'url', 'user_agent', 'ip_address', 'gpc', 'created_at', 'country', 'region', 'mode', 'gpp_string', 'notice_hash'] as const;

/** Pages of this size whose text holds no offset are prepared statements (`listConsents`). */
const PREPARED_PAGE_SIZE = 20;

/**
 * A page of consents and the exact count of all that match, in one statement (one round trip, one
 * snapshot). A filtered page walks its offset in the (account_id, created_at, id) index alone, an
 * unfiltered one skips whole days and hours by their counts first (`skippedPage`); only the page's
 * rows are read from the table. The count is one row joined to the page, so it comes with an empty
 * page too.
 *
 * The limit is written into the text, and so is the offset of a filtered page. A page of the default
 * size whose text holds no offset (a first page, or an unfiltered page, whose offset is a parameter
 * of `skippedPage`) is a prepared statement, one per filter shape and order:
 * PostgreSQL then skips parsing and planning, which took 0.2 ms of the 0.3 ms of a first page, 1.1 of
 * the 1.5 ms of a 330-day window and 0.7 of an unfiltered `offset=10000` at 10,000,000 consents. Their
 * generic plans are the plans for the values: the literal limit keeps the index-ordered scans the
 * cheapest. Filtered pages past the first are planned per request: with the offset a parameter, the
 * generic plan joined a hash of 10% of the account (200 ms at 1,000,000).
 */
export async function listConsents(
  db: Pick<Db, 'kysely' | 'executePrepared'>,
  accountId: string,
  filters: ConsentFilters,
  sort: Sort<'created_at'>,
  window: Window,
): Promise<{ rows: NewConsent[]; count: number }> {
  const order = sql.raw(sort.order);
  const { session_id, user_id, created_after, created_before } = filters;
  const unfiltered = [session_id, user_id, created_after, created_before].every((value) => value === undefined);
  const skipping = unfiltered && window.offset > 0;
  const ordered = (query: ReturnType<typeof filtered>) => query.orderBy(sort.sort, sort.order).orderBy('id', sort.order).limit(sql.lit(window.limit));
  const start = () => skipping
    ? skippedPage(accountId, window, sort.order)
    : ordered(filtered(db.kysely, accountId, filters)).select(['id', 'created_at']).offset(sql.lit(window.offset));
  // A first page reads its rows in the index's order: joining them back by id cost each row a
  // primary-key descent besides its table page (207 buffers against 56 for a user_id page at 10M).
  const rows = window.offset === 0
    ? ordered(filtered(db.kysely, accountId, filters, 'consent_records')).select(LISTED.map((c) => sql.ref(c).as(c)))
    : db.kysely.selectFrom(sql<{ id: string; created_at: Date }>`(${start()})`.as('page'))
      .innerJoin('consent_records', 'consent_records.id', 'page.id').select(LISTED.map((c) => `consent_records.${c}` as const));
  const query = sql<Selectable<ConsentRecordsView> & { total: number }>`select counted.total, listed.* from (select ${countOf(db.kysely, accountId, filters)} as total) counted
    left join lateral (${rows}) listed on true
    order by listed.created_at ${order}, listed.id ${order}`.compile(db.kysely);
  const result = window.limit === PREPARED_PAGE_SIZE && (window.offset === 0 || skipping)
    ? await db.executePrepared<Selectable<ConsentRecordsView> & { total: number }>(query)
    : (await db.kysely.executeQuery(query)).rows;
  return {
    rows: result.filter((row) => row.id !== null).map((row) => ({
      id: row.id, account_id: row.account_id, session_id: row.session_id, user_id: row.user_id, user_preferences: preferencesOf(row),
      url: row.url, user_agent: row.user_agent, ip_address: row.ip_address, gpc: row.gpc, created_at: row.created_at,
      country: row.country, region: row.region, mode: row.mode, gpp_string: row.gpp_string, notice_hash: row.notice_hash,
    })),
    count: Number(result[0]?.total ?? 0),
  };
}

export async function findConsent(db: Executor, accountId: string, id: string): Promise<ConsentRow | undefined> {
  const row = await db.selectFrom('consent_records').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return row && fromStored(row);
}

/** The account's consents with these ids, in the order they were recorded: what a `consent.recorded` webhook tells. */
export async function findConsentsByIds(db: Executor, accountId: string, ids: string[]): Promise<ConsentRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('consent_records').selectAll().where('account_id', '=', accountId).where('id', 'in', ids)
    .orderBy('chain_seq').execute();
  return rows.map(fromStored);
}
