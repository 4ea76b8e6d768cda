import { Type, type Static } from 'typebox';
import type { UserRow } from '../../db/schema.ts';
import { Timestamp } from '../../http/schemas.ts';

export const UserSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String({ format: 'email' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type User = Static<typeof UserSchema>;

/** Never carries the password hash. */
export function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
