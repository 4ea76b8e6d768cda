import { Type } from 'typebox';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf } from '../../http/auth.ts';
import { Nullable, StringEnum, Timestamp, withErrors } from '../../http/schemas.ts';
import { findAccountById } from '../accounts/accounts.service.ts';
import { AccountSchema, toAccount } from '../accounts/accounts.schema.ts';
import { findPartner } from '../partners/partners.service.ts';
import { findUser } from '../users/users.service.ts';
import { toUser, UserSchema } from '../users/users.schema.ts';

const PartnerSchema = Type.Object({ id: Type.String(), name: Type.String(), created_at: Timestamp });

const MeResponse = Type.Object({
  data: Type.Object({
    token_type: StringEnum(['partner', 'user', 'account'] as const),
    partner: Nullable(PartnerSchema),
    user: Nullable(UserSchema),
    account: Nullable(AccountSchema),
  }),
});

export const meRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/me', {
    config: { auth: 'any' },
    schema: {
      operationId: 'me', tags: ['Authentication'], security: [{ bearer: [] }],
      summary: 'Who the token belongs to',
      response: withErrors({ 200: MeResponse }),
    },
  }, async (request) => {
    const principal = principalOf(request);
    const partner = principal.type === 'partner' ? await findPartner(db, principal.partnerId!) : undefined;
    const user = principal.type === 'user' ? await findUser(db, principal.userId!) : undefined;
    const account = principal.accountId ? await findAccountById(db, principal.accountId) : undefined;
    return {
      data: {
        token_type: principal.type,
        partner: partner ? { id: partner.id, name: partner.name, created_at: partner.created_at.toISOString() } : null,
        user: user ? toUser(user) : null,
        account: account ? toAccount(account) : null,
      },
    };
  });
};
