import { Type, type Static } from 'typebox';
import type { AiActionRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { StringEnum, Timestamp } from '../../http/schemas.ts';
import { reasonOf } from './ai-action-reason.ts';

export const ACTION_TYPES = ['autofill', 'auto_categorise', 'auto_approve', 'translate'] as const;
export const ACTIONABLE_TYPES = ['Category', 'StorageItem'] as const;

const STATUSES = ['applied', 'suggested', 'reverted', 'rejected'] as const;

export const AiActionSchema = Type.Object({
  id: Type.String(),
  action_type: StringEnum(ACTION_TYPES),
  actionable_type: StringEnum(ACTIONABLE_TYPES),
  actionable_id: Type.String(),
  suggested_params: Type.Record(Type.String(), Type.Unknown()),
  previous_params: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The values before the action; empty when the action created the record',
  }),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  source: Type.String({ description: 'The knowledge the decision rests on' }),
  reason: Type.String({ description: 'Why, in one sentence for a person, read from the source' }),
  status: StringEnum(STATUSES, {
    description: 'suggested: waits for a person, who accepts it (then applied) or rejects it',
  }),
  created_at: Timestamp,
});
export type AiAction = Static<typeof AiActionSchema>;

export const AiActionListQuery = offsetQuery(['created_at'] as const, {
  action_type: Type.Optional(StringEnum(ACTION_TYPES)),
  actionable_type: Type.Optional(StringEnum(ACTIONABLE_TYPES)),
  actionable_id: Type.Optional(Type.String({ format: 'uuid' })),
  status: Type.Optional(StringEnum(STATUSES, { description: 'suggested: the suggestions waiting for a person' })),
});
export type AiActionFilters = Pick<Static<typeof AiActionListQuery>, 'action_type' | 'actionable_type' | 'actionable_id' | 'status'>;

export function toAiAction(row: AiActionRow): AiAction {
  return {
    id: row.id,
    action_type: row.action_type,
    actionable_type: row.actionable_type,
    actionable_id: row.actionable_id,
    suggested_params: row.suggested_params,
    previous_params: row.previous_params,
    confidence: Math.round(row.confidence * 1000) / 1000,
    source: row.source,
    reason: reasonOf(row.source),
    status: row.status,
    created_at: row.created_at.toISOString(),
  };
}
