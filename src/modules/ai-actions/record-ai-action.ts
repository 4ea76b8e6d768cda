import type { Executor } from '../../db/kysely.ts';
import type { AiActionRow } from '../../db/schema.ts';
import { enqueueEvent } from '../webhooks/webhooks.service.ts';
import { insertAiAction, type NewAiAction } from './ai-actions.repository.ts';

/** Records an AI action and, in the same transaction, its `ai_action.created` webhook. */
export async function recordAiAction(db: Executor, action: NewAiAction): Promise<AiActionRow> {
  const row = await insertAiAction(db, action);
  await enqueueEvent(db, row.account_id, 'ai_action.created', {
    id: row.id, action_type: row.action_type, actionable_type: row.actionable_type, actionable_id: row.actionable_id,
    suggested_params: row.suggested_params, previous_params: row.previous_params, confidence: row.confidence,
    source: row.source, status: row.status, created_at: row.created_at.toISOString(),
  });
  return row;
}
