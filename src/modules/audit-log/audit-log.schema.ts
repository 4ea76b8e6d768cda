import { Type } from 'typebox';
import type { AuditEntryRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum, Text, Timestamp } from '../../http/schemas.ts';

export const ACTOR_TYPES = ['user', 'token', 'partner', 'ai', 'system'] as const;

export const AuditLogQuery = offsetQuery(['created_at'] as const, {
  actor_type: Type.Optional(StringEnum(ACTOR_TYPES)),
  actor_id: Type.Optional(Text(64, { minLength: 1 })),
  resource_type: Type.Optional(Text(64, { minLength: 1 })),
  resource_id: Type.Optional(Text(64, { minLength: 1 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this time' })),
});

export const AuditEntrySchema = Type.Object({
  id: Type.String(),
  created_at: Timestamp,
  actor_type: StringEnum(ACTOR_TYPES, { description: 'user (a session or user token), token (an account token), partner, ai (the AI worker), system' }),
  actor_id: Nullable(Type.String({ description: "The user's, the account token's or the partner's id; null for ai and system" })),
  resource_type: Type.String({ description: 'account, category, storage_item, service, banner, account_user, account_invitation, api_token, ai_action, scan, webhook' }),
  resource_id: Nullable(Type.String()),
  action: Type.String({ description: 'create, update, delete, or the action taken (revert, accept, reject, approve, classify, resend, reconsent, start, cancel)' }),
  before: Type.Unknown({ description: 'The fields before (for an update: only those that changed); null for a creation. Secrets never appear' }),
  after: Type.Unknown({ description: 'The fields after (for an update: only those that changed); null for a deletion. Secrets never appear' }),
});

export function toAuditEntry(row: AuditEntryRow) {
  return {
    id: row.id, created_at: row.created_at.toISOString(), actor_type: row.actor_type, actor_id: row.actor_id,
    resource_type: row.resource_type, resource_id: row.resource_id, action: row.action, before: row.before, after: row.after,
  };
}
