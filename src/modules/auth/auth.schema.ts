import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';
import { Password } from '../users/users.schema.ts';

export const LoginBody = Type.Object({ email: Type.String({ maxLength: 254 }), password: Password });

export const LoginResponse = Type.Object({
  token: Type.String(),
  expires_at: Timestamp,
  user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
});
