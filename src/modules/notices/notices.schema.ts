import { Type } from 'typebox';
import { offsetQuery } from '../../http/pagination.ts';
import { Timestamp } from '../../http/schemas.ts';

/** A notice hash: SHA-256, hex, lower case. */
export const NOTICE_HASH_PATTERN = '^[0-9a-f]{64}$';

export const NoticeListQuery = offsetQuery(['created_at'] as const, {});

export const NoticeParams = Type.Object({ hash: Type.String({ pattern: NOTICE_HASH_PATTERN, description: 'The snapshot\'s SHA-256, hex' }) });

export const NoticeSummarySchema = Type.Object({
  hash: Type.String({ description: 'SHA-256 (hex) of the canonical JSON of the content' }),
  created_at: Timestamp,
  bytes: Type.Integer({ description: 'Size of the canonical JSON in bytes' }),
});

export const NoticeSchema = Type.Object({
  data: Type.Object({
    hash: Type.String({ description: 'SHA-256 (hex) of the canonical JSON of `content` (keys sorted, no whitespace)' }),
    created_at: Timestamp,
    content: Type.Unknown({
      description: 'The banner configuration the widget served (GET /widget/{account_id}/config.json, without `notice_hash`), exactly as hashed',
    }),
  }),
});

export function toNoticeSummary(row: { hash: string; created_at: Date; bytes: number | string }) {
  return { hash: row.hash, created_at: row.created_at.toISOString(), bytes: Number(row.bytes) };
}
