import { Type, type Static } from 'typebox';
import { MAX_PASSWORD_LENGTH } from '../users/users.schema.ts';

const Password = Type.String({ maxLength: MAX_PASSWORD_LENGTH });

export const ResetRequestBody = Type.Object({ email: Type.String({ maxLength: 254 }) });

export const ResetRequestResponse = Type.Object({ message: Type.String() });

export const ResetBody = Type.Object({
  token: Type.String({ maxLength: 200 }),
  password: Password,
  password_confirmation: Password,
});
export type ResetInput = Static<typeof ResetBody>;

export const ResetResponse = Type.Object({ success: Type.Boolean() });
