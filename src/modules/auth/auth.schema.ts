import { Type } from 'typebox';
import { Name, Timestamp } from '../../http/schemas.ts';
import { UserSchema } from '../users/users.schema.ts';
import { MAX_PASSWORD_LENGTH } from '../users/users.service.ts';

const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ maxLength: MAX_PASSWORD_LENGTH });

export const LoginBody = Type.Object({ email: Type.String({ maxLength: 254 }), password: Password });

export const LoginResponse = Type.Object({
  token: Type.String(),
  expires_at: Timestamp,
  user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
});

export const PasswordBody = Type.Object({
  user: Type.Object({
    current_password: Password,
    password: Password,
    password_confirmation: Password,
  }),
});

export const SignUpBody = Type.Object({
  user: Type.Object({ name: Name(), email: Email, password: Password }),
});

export const SignUpResponse = Type.Object({ data: UserSchema, token: Type.String() });
