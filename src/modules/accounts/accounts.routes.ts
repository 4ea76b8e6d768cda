import type { FastifyRequest } from 'fastify';
import { BadRequestError } from '../../http/app-errors.ts';
import { principalOf } from '../../http/auth.ts';
import { normaliseDomain } from '../../lib/hosts.ts';
import { listOf, pageWindow, paginate } from '../../http/pagination.ts';
import { ErrorList, IdParams, MessageSchema } from '../../http/schemas.ts';
import type { RoutesPlugin } from '../../services.ts';
import {
  AccountListQuery,
  AccountSchema,
  CreateAccountBody,
  toAccount,
  UpdateAccountBody,
  type AccountFields,
} from './accounts.schema.ts';
import { listAccounts } from './accounts.repository.ts';
import { assertMayCreateAccount, changeAccount, createAccount, reachableAccount, removeAccount } from './accounts.service.ts';

const tags = ['Accounts'];
const config = { auth: 'any' } as const;

export const accountsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/accounts', {
    config,
    schema: {
      operationId: 'listAccounts', tags, summary: 'List the accounts the token reaches',
      querystring: AccountListQuery,
      response: { 200: listOf(AccountSchema) },
    },
  }, async (request) => {
    const window = pageWindow(request.query);
    const { onboarding_status, group_id } = request.query;
    const domain = request.query.domain === undefined ? undefined : normaliseDomain(request.query.domain);
    if (domain === undefined && request.query.domain !== undefined) throw new BadRequestError('domain is invalid');
    await services.visits.written();
    const { rows, count } = await listAccounts(db, principalOf(request), { onboarding_status, group_id, domain }, window);
    return { pagination: paginate(request, window, count), data: rows.map(toAccount) };
  });

  app.post('/accounts', {
    config,
    schema: {
      operationId: 'createAccount', tags,
      summary: 'Create an account: a partner names one of its groups; a user becomes its owner and admin',
      body: CreateAccountBody,
      response: { 201: AccountSchema, 403: ErrorList },
    },
    // Refused before the body is read: an account token may not create accounts, whatever it sends.
    preValidation: async (request) => assertMayCreateAccount(principalOf(request)),
  }, async (request, reply) => reply.code(201).send(toAccount(await createAccount(services, principalOf(request), request.body.account))));

  app.get('/accounts/:id', {
    config,
    schema: {
      operationId: 'getAccount', tags, summary: 'One account',
      params: IdParams,
      response: { 200: AccountSchema },
    },
  }, async (request) => {
    await services.visits.written();
    return toAccount(await reachableAccount(db, principalOf(request), request.params.id));
  });

  const update = async (request: FastifyRequest<{ Params: { id: string }; Body: { account: AccountFields } }>) =>
    toAccount(await changeAccount(services, principalOf(request), request.params.id, request.body.account));
  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/accounts/:id',
      config,
      schema: {
        operationId: method === 'PUT' ? 'updateAccount' : 'patchAccount', tags,
        summary: 'Update an account (fields not sent stay as they are)',
        params: IdParams,
        body: UpdateAccountBody,
        response: { 200: AccountSchema, 403: ErrorList },
      },
      handler: update,
    });
  }

  app.delete('/accounts/:id', {
    config,
    schema: {
      operationId: 'deleteAccount', tags, summary: 'Delete an account and everything in it',
      params: IdParams,
      response: { 200: MessageSchema, 403: ErrorList },
    },
  }, async (request) => {
    await removeAccount(services, principalOf(request), request.params.id);
    return { message: 'Account was deleted successfully' };
  });
};
