import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { newId } from '../../db/ids.ts';
import type { ConsentRow, Database } from '../../db/schema.ts';
import { linkHash, personalHash } from './consent-chain.ts';
import { chainPage, eraseSubject, exportPage, findAnchor, findHead, findUnchained, insertErasure } from './consents-proof.repository.ts';
import type { ConsentFilters } from './consents.schema.ts';

/** Rows read per query while verifying or exporting: memory stays flat whatever the account holds. */
const PAGE = 2_000;

export interface Verification {
  valid: boolean;
  checked: number;
  first_bad_id: string | null;
}

/** What the chain says of a consent's personal fields: recomputed while they exist, as stored once erased. */
function personalOf(row: ConsentRow): string | null {
  if (row.personal_salt === null) return row.erased_at ? row.personal_hash : null;
  const computed = personalHash(row.personal_salt, row);
  return computed === row.personal_hash ? computed : null;
}

/** Rounds of reading more rows while writers keep moving the head during a verification. */
const HEAD_ROUNDS = 10;

/**
 * Walks the account's chain from its anchor, page by page, recomputing every link: an edited row,
 * a removed one (a gap in the numbering or a link that no longer follows) or a forged one (a wrong
 * hash, a row outside the chain, or one past the head the writers stored) stops the walk at the
 * first bad consent. The walk must end exactly at the head, so that removing the newest consents
 * is caught too (`first_bad_id` is null then: the missing rows have no id left to show).
 */
export async function verifyChain(db: Kysely<Database>, accountId: string): Promise<Verification> {
  const outside = await findUnchained(db, accountId);
  if (outside) return { valid: false, checked: 0, first_bad_id: outside };
  const anchor = await findAnchor(db, accountId);
  const at = { seq: anchor.seq, hash: anchor.hash, checked: 0 };
  /** Checks the rows after `at` (up to `until`); answers the first bad row's id, if any. */
  const walk = async (until: number): Promise<{ bad?: string; read: number }> => {
    let read = 0;
    for (;;) {
      const rows = await chainPage(db, accountId, at.seq, PAGE);
      for (const row of rows) {
        if (Number(row.chain_seq) > until) return { bad: row.id, read };
        const personal = personalOf(row);
        const expected = personal === null ? null : linkHash(at.hash, row.chain_seq, row, personal);
        if (Number(row.chain_seq) !== at.seq + 1 || expected === null || expected !== row.hash) return { bad: row.id, read };
        at.seq = Number(row.chain_seq);
        at.hash = expected;
        at.checked++;
        read++;
      }
      if (rows.length < PAGE) return { read };
    }
  };
  const first = await walk(Number.MAX_SAFE_INTEGER);
  if (first.bad) return { valid: false, checked: at.checked, first_bad_id: first.bad };
  // Rows read so far may be newer than a head read before them: the head is read after the walk,
  // and the walk goes on while writers add rows meanwhile.
  for (let round = 0; round < HEAD_ROUNDS; round++) {
    const head = await findHead(db, accountId);
    if (at.seq > head.seq) {
      const extra = await chainPage(db, accountId, head.seq, 1);
      return { valid: false, checked: at.checked, first_bad_id: extra[0]?.id ?? null };
    }
    if (at.seq === head.seq) {
      const valid = at.hash === head.hash;
      return { valid, checked: at.checked, first_bad_id: null };
    }
    const more = await walk(head.seq);
    if (more.bad) return { valid: false, checked: at.checked, first_bad_id: more.bad };
    if (more.read === 0) return { valid: false, checked: at.checked, first_bad_id: null };
  }
  return { valid: false, checked: at.checked, first_bad_id: null };
}

export type ExportFormat = 'csv' | 'ndjson';

const CSV_COLUMNS = [
  'id', 'created_at', 'session_id', 'user_id', 'accept_type', 'accepted_categories', 'rejected_categories',
  'accepted_services', 'rejected_services', 'url', 'user_agent', 'ip_address', 'gpc', 'chain_seq', 'hash', 'personal_hash', 'erased_at',
] as const;

/** A CSV field: quoted when it holds a comma, a quote or a line break; a leading formula sign is defused. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The exported form of a consent: every field, its place in the chain and its hashes. */
function exported(row: ConsentRow) {
  return {
    id: row.id,
    created_at: row.created_at.toISOString(),
    session_id: row.session_id,
    user_id: row.user_id,
    user_preferences: row.user_preferences,
    url: row.url,
    user_agent: row.user_agent,
    ip_address: row.ip_address,
    gpc: row.gpc,
    chain_seq: Number(row.chain_seq),
    hash: row.hash,
    personal_hash: row.personal_hash,
    erased_at: row.erased_at?.toISOString() ?? null,
  };
}

function csvLine(row: ConsentRow): string {
  const e = exported(row);
  const p = e.user_preferences;
  return `${[e.id, e.created_at, e.session_id, e.user_id, p.accept_type, p.accepted_categories.join(' '), p.rejected_categories.join(' '),
    p.accepted_services, p.rejected_services, e.url, e.user_agent, e.ip_address, e.gpc, e.chain_seq, e.hash, e.personal_hash, e.erased_at]
    .map(csvField).join(',')}\n`;
}

/**
 * Every consent matching the list's filters, oldest first, as a stream: pages of rows are read
 * as the client takes the text (the stream's back-pressure), so memory does not grow with the count.
 */
export function exportConsents(db: Kysely<Database>, accountId: string, filters: ConsentFilters, format: ExportFormat): Readable {
  async function* lines() {
    if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\n`;
    let after: { created_at: Date; id: string } | undefined;
    for (;;) {
      const rows = await exportPage(db, accountId, filters, after, PAGE);
      if (rows.length === 0) return;
      let chunk = '';
      for (const row of rows) chunk += format === 'csv' ? csvLine(row) : `${JSON.stringify(exported(row))}\n`;
      yield chunk;
      if (rows.length < PAGE) return;
      const last = rows.at(-1)!;
      after = { created_at: last.created_at, id: last.id };
    }
  }
  return Readable.from(lines());
}

export interface Eraser {
  type: string;
  id: string | null;
}

/** Erases a subject's personal fields and logs who did it, in one transaction. */
export async function eraseConsents(db: Kysely<Database>, accountId: string, field: 'user_id' | 'session_id', value: string, by: Eraser) {
  return db.transaction().execute(async (trx) => {
    const consents = await eraseSubject(trx, accountId, field, value);
    return insertErasure(trx, {
      id: newId(),
      account_id: accountId,
      subject_type: field,
      subject_hash: createHash('sha256').update(value).digest('hex'),
      consents,
      erased_by_type: by.type,
      erased_by_id: by.id,
    });
  });
}
