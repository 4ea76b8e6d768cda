import { Type, type Static } from 'typebox';
import { offsetQuery } from '../../http/pagination.ts';
import { Timestamp } from '../../http/schemas.ts';
import type { AccountUserView } from './account-users.repository.ts';

/** Role flags; `admin` is the only role. */
export const RolesSchema = Type.Object({ admin: Type.Boolean() });

export const AccountUserSchema = Type.Object({
  id: Type.String(),
  roles: RolesSchema,
  created_at: Timestamp,
  updated_at: Timestamp,
  user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String({ format: 'email' }) }),
  account: Type.Object({ id: Type.String(), name: Type.String() }),
});
export type AccountUser = Static<typeof AccountUserSchema>;

export const ACCOUNT_USER_SORTS = ['created_at'] as const;
export const AccountUserListQuery = offsetQuery(ACCOUNT_USER_SORTS, {});

export const UpdateAccountUserBody = Type.Object({
  account_user: Type.Object({ roles: RolesSchema }),
});

export function toAccountUser(row: AccountUserView): AccountUser {
  return {
    id: row.id,
    roles: { admin: row.admin },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    user: { id: row.user_id, name: row.user_name, email: row.user_email },
    account: { id: row.account_id, name: row.account_name },
  };
}
