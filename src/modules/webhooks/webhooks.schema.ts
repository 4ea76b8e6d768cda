import { Type, type Static } from 'typebox';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum, Text, Timestamp } from '../../http/schemas.ts';

/** The events an endpoint may ask for (docs/webhooks.md shows each one's payload). */
export const WEBHOOK_EVENTS = [
  'consent.recorded', 'consent.erased', 'scan.completed', 'storage_item.discovered', 'ai_action.created', 'notice.changed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'parked'] as const;

const Events = Type.Array(StringEnum(WEBHOOK_EVENTS), { minItems: 1, maxItems: WEBHOOK_EVENTS.length, description: 'The events to be sent' });

export const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(StringEnum(WEBHOOK_EVENTS)),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String({ description: 'Why the service disabled it (every delivery failed for a day); null otherwise' })),
  failing_since: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Webhook = Static<typeof WebhookSchema>;

const Fields = {
  url: Text(2048, { description: 'An https URL with a public address' }),
  events: Events,
  description: Type.Optional(Text(255)),
  enabled: Type.Optional(Type.Boolean({ default: true })),
};

export const CreateWebhookBody = Type.Object({ webhook: Type.Object(Fields) });
export const UpdateWebhookBody = Type.Object({ webhook: Type.Partial(Type.Object(Fields)) });
export type WebhookFields = Static<typeof UpdateWebhookBody>['webhook'];

export const WrappedWebhook = Type.Object({ data: WebhookSchema });
export const WebhookWithSecret = Type.Object({
  data: WebhookSchema,
  secret: Type.String({ description: 'The signing secret (`whsec_…`), shown this once: keep it to verify the `webhook-signature` header' }),
});

export const WebhookListQuery = offsetQuery(['created_at'] as const, {});

export function toWebhook(row: WebhookEndpointRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events as Webhook['events'],
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const DeliverySchema = Type.Object({
  id: Type.String(),
  webhook_id: Type.String(),
  message_id: Type.String({ description: 'The `webhook-id` header sent, the same on every attempt' }),
  event: StringEnum(WEBHOOK_EVENTS),
  status: StringEnum(DELIVERY_STATUSES, { description: '`pending` (waiting or retrying), `delivered` (a 2xx answer), `parked` (retried for its whole window, or its endpoint was disabled)' }),
  attempts: Type.Integer(),
  response_code: Nullable(Type.Integer({ description: "The last attempt's HTTP status; null when it got no answer" })),
  error: Nullable(Type.String({ description: "What went wrong at the last attempt (a status, a timeout, a refused address)" })),
  next_attempt_at: Nullable(Timestamp),
  delivered_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type Delivery = Static<typeof DeliverySchema>;

export const DeliveryListQuery = offsetQuery(['created_at'] as const, {
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
  event: Type.Optional(StringEnum(WEBHOOK_EVENTS)),
});

export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }), delivery_id: Type.String({ format: 'uuid' }) });

export function toDelivery(row: WebhookDeliveryRow, messageId: string): Delivery {
  return {
    id: row.id,
    webhook_id: row.endpoint_id,
    message_id: messageId,
    event: row.event as WebhookEvent,
    status: row.status,
    attempts: row.attempts,
    response_code: row.last_status_code,
    error: row.last_error,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
