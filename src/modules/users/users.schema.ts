import { Type, type Static } from 'typebox';
import type { UserRow } from '../../db/schema.ts';
import { Name, Timestamp } from '../../http/schemas.ts';

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Password = Type.String({ maxLength: MAX_PASSWORD_LENGTH });

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

export const PasswordBody = Type.Object({
  user: Type.Object({
    current_password: Password,
    password: Password,
    password_confirmation: Password,
  }),
});

/** A new password's length is the schema's, so a short one is reported with the body's other problems. */
const NewPassword = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH });

export const SignUpBody = Type.Object({
  user: Type.Object({ name: Name(), email: Email, password: NewPassword }),
});

export const SignUpResponse = Type.Object({ data: UserSchema, token: Type.String() });
