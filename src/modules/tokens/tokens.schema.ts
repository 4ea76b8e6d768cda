import { Type, type Static } from 'typebox';
import type { ApiTokenRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum, Text, Timestamp } from '../../http/schemas.ts';

export const ApiTokenSchema = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  token_type: StringEnum(['partner', 'user', 'account'] as const),
  kind: StringEnum(['session', 'api'] as const),
  token_hint: Type.String({ description: 'Last 4 characters of the token' }),
  account_id: Nullable(Type.String()),
  expires_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type ApiToken = Static<typeof ApiTokenSchema>;

const TokenFields = Type.Object({
  name: Type.Optional(Text(255)),
  account_id: Type.Optional(Type.String({ maxLength: 64 })),
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
});
export type TokenFields = Static<typeof TokenFields>;

/** Wrapped under `api_token` like every resource; the bare fields are accepted too. */
export const CreateTokenBody = Type.Object({
  api_token: Type.Optional(TokenFields),
  ...TokenFields.properties,
});

export const CreatedTokenResponse = Type.Object({
  data: ApiTokenSchema,
  token: Type.String({ description: 'The secret: shown this once, never again' }),
});

export const TokenListQuery = offsetQuery(['created_at'] as const, {});

export function toApiToken(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    token_type: row.token_type,
    kind: row.kind,
    token_hint: row.token_hint,
    account_id: row.account_id,
    expires_at: row.expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
