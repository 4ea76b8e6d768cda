import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { listAnswer, OLDEST_FIRST } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { ValidationErrorList } from '../../http/schemas.ts';
import { findAccountUser, listAccountUsers } from './account-users.repository.ts';
import {
  AccountUserListQuery,
  AccountUserSchema,
  toAccountUser,
  UpdateAccountUserBody,
} from './account-users.schema.ts';
import { changeRoles, removeAccountUser } from './account-users.service.ts';

const One = Type.Object({ data: AccountUserSchema });

export const accountUsersRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const members = resourceRoutes(app, { path: '/account-users', tags: ['Account users'], access: ACCOUNT_ACCESS });

  members.list({
    operationId: 'listAccountUsers', summary: 'The members of the account',
    querystring: AccountUserListQuery, item: AccountUserSchema,
  }, (request) => listAnswer(request, OLDEST_FIRST,
    (sort, window) => listAccountUsers(db, scopeOf(request).accountId, window, sort), toAccountUser));

  members.one({ operationId: 'getAccountUser', summary: 'One member of the account', answer: One },
    async (request) => ({ data: toAccountUser(found(await findAccountUser(db, scopeOf(request).accountId, request.params.id))) }));

  members.change({
    operationId: 'updateAccountUser',
    summary: 'Grant or withdraw the admin role; the owner and the last admin stay admins',
    body: UpdateAccountUserBody, answer: One,
  }, async (request) => {
    const { admin } = request.body.account_user.roles;
    const row = await changeRoles(db, scopeOf(request).accountId, request.params.id, admin);
    await services.forgetMemberships([row.user_id]);
    return { data: toAccountUser(row) };
  });

  members.remove({
    operationId: 'deleteAccountUser',
    summary: 'Remove a member from the account; the owner and the last admin cannot be removed',
    message: 'Account user was removed successfully', errors: { 422: ValidationErrorList },
  }, async (request) => {
    const userId = await removeAccountUser(db, scopeOf(request).accountId, request.params.id);
    await services.forgetMemberships(userId ? [userId] : []);
  });
};
