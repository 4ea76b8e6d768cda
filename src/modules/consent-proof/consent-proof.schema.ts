import type { Selectable } from 'kysely';
import { Type, type Static } from 'typebox';
import type { ConsentDailyStatsTable, ConsentErasureRow, ConsentRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum, Text, Timestamp } from '../../http/schemas.ts';
import { NoticeSchema, noticeOf, RegionalSchema, regionalOf, UserPreferencesSchema } from '../consents/consents.schema.ts';

export const VerificationSchema = Type.Object({
  valid: Type.Boolean(),
  checked: Type.Integer({ description: 'Consents whose link was recomputed' }),
  first_bad_id: Nullable(Type.String({ description: 'The first consent that breaks the chain; null when valid or when the newest consents are missing' })),
});

export const EraseBody = Type.Object({
  user_id: Type.Optional(Text(255, { minLength: 1 })),
  session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

export const ErasureSchema = Type.Object({
  id: Type.String(),
  subject_type: StringEnum(['user_id', 'session_id'] as const),
  subject_hash: Type.String({ description: 'SHA-256 of the erased identifier' }),
  consents: Type.Integer({ description: 'Consents whose personal fields were cleared' }),
  erased_by_type: Type.String(),
  erased_by_id: Nullable(Type.String()),
  created_at: Timestamp,
});

/** The erasure log, newest first; `user_id` or `session_id` finds the entries of that subject. */
export const ErasureListQuery = offsetQuery(['created_at'] as const, {
  user_id: Type.Optional(Text(255, { minLength: 1 })),
  session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

export function toErasure(row: ConsentErasureRow) {
  return {
    id: row.id,
    subject_type: row.subject_type,
    subject_hash: row.subject_hash,
    consents: row.consents,
    erased_by_type: row.erased_by_type,
    erased_by_id: row.erased_by_id,
    created_at: row.created_at.toISOString(),
  };
}

export const CheckpointQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date', description: 'First UTC day; default: 3659 days before `to`' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'Last UTC day; default: today' })),
});
export type CheckpointQuery = Static<typeof CheckpointQuery>;

export const CheckpointList = Type.Object({
  data: Type.Array(Type.Object({
    day: Type.String({ format: 'date' }),
    consents: Type.Integer({ description: 'Consents recorded that day' }),
    chain_seq: Type.Integer({ description: "The chain position of the day's last consent" }),
    consent_id: Nullable(Type.String()),
    hash: Type.String({ description: 'The chain head at the end of the day' }),
  })),
});

/** A day's checkpoint: the day's consents and the chain's last link that day (a day with consents has one). */
export function toCheckpoint(row: Pick<Selectable<ConsentDailyStatsTable>, 'day' | 'consents' | 'head_seq' | 'head_id' | 'head_hash'>) {
  return {
    day: row.day.toISOString().slice(0, 10), consents: row.consents, chain_seq: Number(row.head_seq), consent_id: row.head_id, hash: row.head_hash!,
  };
}

export const ReceiptParams = Type.Object({ account_id: Type.String({ format: 'uuid' }), id: Type.String({ format: 'uuid' }) });
export const ReceiptQuery = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 128, description: 'The session that gave the consent' }) });

export const ReceiptSchema = Type.Object({
  data: Type.Object({
    id: Type.String(),
    created_at: Timestamp,
    user_preferences: UserPreferencesSchema,
    gpc: Type.Boolean(),
    url: Nullable(Type.String()),
    ...RegionalSchema,
    ...NoticeSchema,
    chain_seq: Type.Integer(),
    hash: Nullable(Type.String({ description: "SHA-256 link of the account's consent chain" })),
    personal_hash: Nullable(Type.String()),
  }),
});

export function toReceipt(row: ConsentRow) {
  return {
    data: {
      id: row.id,
      created_at: row.created_at.toISOString(),
      user_preferences: row.user_preferences,
      gpc: row.gpc,
      url: row.url,
      ...regionalOf(row),
      ...noticeOf(row),
      chain_seq: Number(row.chain_seq),
      hash: row.hash,
      personal_hash: row.personal_hash,
    },
  };
}
