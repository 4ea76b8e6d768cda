import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { AccountSchema } from '../accounts/accounts.schema.ts';
import { Password, UserSchema } from '../users/users.schema.ts';

export const LoginBody = Type.Object({ email: Type.String({ maxLength: 254 }), password: Password });

export const LoginResponse = Type.Object({
  token: Type.String(),
  expires_at: Timestamp,
  user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
});

const PartnerSchema = Type.Object({ id: Type.String(), name: Type.String(), created_at: Timestamp });

export const MeResponse = Type.Object({
  data: Type.Object({
    token_type: StringEnum(['partner', 'user', 'account'] as const),
    partner: Nullable(PartnerSchema),
    user: Nullable(UserSchema),
    account: Nullable(AccountSchema),
  }),
});
