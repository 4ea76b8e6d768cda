import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { newId } from '../../db/ids.ts';
import type { ConsentRow, Database } from '../../db/schema.ts';
import { BadRequestError } from '../../http/app-errors.ts';
import { DAY_MS } from '../../lib/utc-period.ts';
import { linkHash, personalHash } from '../consents/consents.service.ts';
import { enqueueEvent } from '../webhooks/webhooks.service.ts';
import {
  chainPage, eraseSubject, exportPage, findAnchor, findHead, findUnchained, insertErasure, listCheckpoints, type ExportCursor, type PageLimits,
} from './consent-proof.repository.ts';
import type { CheckpointQuery } from './consent-proof.schema.ts';
import type { ConsentFilters } from '../consents/consents.schema.ts';

/**
 * What one read takes while verifying: memory stays flat whatever the account holds, and however
 * large its consents (a page of 2,000 of the largest a body may hold was ~260 MB of text).
 */
const PAGE: PageLimits = { rows: 2_000, bytes: 1024 * 1024 };

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

/**
 * Lets the event loop run between two pages. The embedded database answers in the server's own
 * thread and resolves its queries without a turn of the loop: an export of 760 MB read page after
 * page left no turn to timers or sockets for the whole two minutes it took (`/healthz` unanswered).
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
      await turn();
      const { rows, more } = await chainPage(db, accountId, at.seq, PAGE);
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
      if (!more) return { read };
    }
  };
  const first = await walk(Number.MAX_SAFE_INTEGER);
  if (first.bad) return { valid: false, checked: at.checked, first_bad_id: first.bad };
  // Rows read so far may be newer than a head read before them: the head is read after the walk,
  // and the walk goes on while writers add rows meanwhile.
  for (let round = 0; round < HEAD_ROUNDS; round++) {
    const head = await findHead(db, accountId);
    if (at.seq > head.seq) {
      const extra = await chainPage(db, accountId, head.seq, { rows: 1, bytes: 1 });
      return { valid: false, checked: at.checked, first_bad_id: extra.rows[0]?.id ?? null };
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

/** The days one list of checkpoints spans at most, and by default: ten years. */
const CHECKPOINT_DAYS = 3_660;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The account's daily checkpoints from `from` to `to` (by default the 3,660 days up to today),
 * oldest first; 400 when the range is backwards or longer than that.
 */
export async function checkpointsOf(db: Kysely<Database>, accountId: string, query: CheckpointQuery) {
  const to = query.to ?? dayOf(Date.now());
  const from = query.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - (CHECKPOINT_DAYS - 1) * DAY_MS);
  if (from > to) throw new BadRequestError('from must not be after to');
  if (Date.parse(to) - Date.parse(from) >= CHECKPOINT_DAYS * DAY_MS) {
    throw new BadRequestError(`from and to must be at most ${CHECKPOINT_DAYS} days apart`);
  }
  return listCheckpoints(db, accountId, from, to);
}

export type ExportFormat = 'csv' | 'ndjson';

const CSV_COLUMNS = [
  'id', 'created_at', 'session_id', 'user_id', 'accept_type', 'accepted_categories', 'accepted_category_names',
  'rejected_categories', 'rejected_category_names',
  'accepted_services', 'rejected_services', 'url', 'user_agent', 'ip_address', 'gpc', 'chain_seq', 'hash', 'personal_hash', 'erased_at',
  'country', 'region', 'mode', 'gpp_string', 'notice_hash',
] as const;

/**
 * What one exported page takes: more rows than the verifier's, as PostgreSQL hands each page over as
 * one text, and bytes bounded so that the text stays small whatever the consents hold, and a page of
 * the embedded database (which runs in the server's thread) takes a fraction of a second.
 */
const EXPORT_PAGE: PageLimits = { rows: 5_000, bytes: 1024 * 1024 };

/**
 * Every consent matching the list's filters, oldest first, as a stream: a page is read only when the
 * client has taken the previous one (the stream's back-pressure), so memory does not grow with the
 * count. PostgreSQL writes the lines (CSV fields quoted, a leading formula sign defused), so the
 * event loop only passes text on.
 */
export function exportConsents(
  db: Kysely<Database>, accountId: string, filters: ConsentFilters, format: ExportFormat, limits = EXPORT_PAGE,
): Readable {
  async function* pages() {
    if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\n`;
    let after: ExportCursor | undefined;
    for (;;) {
      await turn();
      const page = await exportPage(db, accountId, filters, after, limits, format);
      if (page.rows > 0) yield page.text;
      if (!page.more || !page.last) return;
      after = page.last;
    }
  }
  // A byte stream, not an object stream: it buffers one page ahead of the socket, not sixteen.
  return Readable.from(pages(), { objectMode: false });
}

export interface Eraser {
  type: string;
  id: string | null;
}

/** How the erasure log names a subject: never in clear, so that the log itself holds no personal data. */
export const subjectHash = (value: string) => createHash('sha256').update(value).digest('hex');

/** Erases a subject's personal fields and logs who did it, in one transaction. */
export async function eraseConsents(db: Kysely<Database>, accountId: string, field: 'user_id' | 'session_id', value: string, by: Eraser) {
  return db.transaction().execute(async (trx) => {
    const consents = await eraseSubject(trx, accountId, field, value);
    const erasure = await insertErasure(trx, {
      id: newId(),
      account_id: accountId,
      subject_type: field,
      subject_hash: subjectHash(value),
      consents,
      erased_by_type: by.type,
      erased_by_id: by.id,
    });
    // The subject's hash, never the identifier itself: the outbox keeps payloads for days after the erasure.
    await enqueueEvent(trx, accountId, 'consent.erased', {
      erasure_id: erasure.id, subject_type: field, subject_hash: erasure.subject_hash, consents, erased_at: erasure.created_at.toISOString(),
    });
    return erasure;
  });
}

/** What the widget uses: a visitor's own receipt. */
export { findHead, findVisitorConsent } from './consent-proof.repository.ts';
