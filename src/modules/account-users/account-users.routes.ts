import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { listAnswer, listOf } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { IdParams, MessageSchema, ValidationErrorList } from '../../http/schemas.ts';
import { findAccountUser, listAccountUsers } from './account-users.repository.ts';
import {
  AccountUserListQuery,
  AccountUserSchema,
  toAccountUser,
  UpdateAccountUserBody,
} from './account-users.schema.ts';
import { changeRoles, removeAccountUser } from './account-users.service.ts';

const tags = ['Account users'];
const read = { auth: 'account' } as const;
const write = { auth: 'account', admin: true } as const;
const One = Type.Object({ data: AccountUserSchema });

export const accountUsersRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/account-users', {
    config: read,
    schema: {
      operationId: 'listAccountUsers', tags, summary: 'The members of the account',
      querystring: AccountUserListQuery,
      response: { 200: listOf(AccountUserSchema) },
    },
  }, async (request) => listAnswer(request, { sort: 'created_at', order: 'asc' },
    (sort, window) => listAccountUsers(db, scopeOf(request).accountId, window, sort), toAccountUser));

  app.get('/account-users/:id', {
    config: read,
    schema: {
      operationId: 'getAccountUser', tags, summary: 'One member of the account',
      params: IdParams,
      response: { 200: One },
    },
  }, async (request) => {
    const row = found(await findAccountUser(db, scopeOf(request).accountId, request.params.id));
    return { data: toAccountUser(row) };
  });

  app.put('/account-users/:id', {
    config: write,
    schema: {
      operationId: 'updateAccountUser', tags,
      summary: 'Grant or withdraw the admin role; the owner and the last admin stay admins',
      params: IdParams,
      body: UpdateAccountUserBody,
      response: { 200: One },
    },
  }, async (request) => {
    const { admin } = request.body.account_user.roles;
    const row = await changeRoles(db, scopeOf(request).accountId, request.params.id, admin);
    await services.forgetMemberships([row.user_id]);
    return { data: toAccountUser(row) };
  });

  app.delete('/account-users/:id', {
    config: write,
    schema: {
      operationId: 'deleteAccountUser', tags,
      summary: 'Remove a member from the account; the owner and the last admin cannot be removed',
      params: IdParams,
      response: { 200: MessageSchema, 422: ValidationErrorList },
    },
  }, async (request) => {
    const userId = await removeAccountUser(db, scopeOf(request).accountId, request.params.id);
    await services.forgetMemberships(userId ? [userId] : []);
    return { message: 'Account user was removed successfully' };
  });
};
