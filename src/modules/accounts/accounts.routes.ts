import type { FastifyRequest } from 'fastify';
import { BadRequestError } from '../../http/app-errors.ts';
import { principalOf } from '../../http/auth.ts';
import { normaliseDomain } from '../../lib/hosts.ts';
import { listOf, pageWindow, paginate } from '../../http/pagination.ts';
import { IdParams, MessageSchema, withErrors } from '../../http/schemas.ts';
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
const security = [{ bearer: [] }];
const config = { auth: 'any' } as const;

export const accountsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/accounts', {
    config,
    schema: {
      operationId: 'listAccounts', tags, security, summary: 'List the accounts the token reaches',
      querystring: AccountListQuery,
      response: withErrors({ 200: listOf(AccountSchema) }, { 400: 'array' }),
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
      operationId: 'createAccount', tags, security,
      summary: 'Create an account: a partner names one of its groups; a user becomes its owner and admin',
      body: CreateAccountBody,
      response: withErrors({ 201: AccountSchema }, { 403: true, 413: true, 415: true, 422: true }),
    },
    // Refused before the body is read: an account token may not create accounts, whatever it sends.
    preValidation: async (request) => assertMayCreateAccount(principalOf(request)),
  }, async (request, reply) => reply.code(201).send(toAccount(await createAccount(services, principalOf(request), request.body.account))));

  app.get('/accounts/:id', {
    config,
    schema: {
      operationId: 'getAccount', tags, security, summary: 'One account',
      params: IdParams,
      response: withErrors({ 200: AccountSchema }, { 404: true }),
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
        operationId: method === 'PUT' ? 'updateAccount' : 'patchAccount', tags, security,
        summary: 'Update an account (fields not sent stay as they are)',
        params: IdParams,
        body: UpdateAccountBody,
        response: withErrors({ 200: AccountSchema }, { 403: true, 404: true, 413: true, 415: true, 422: true }),
      },
      handler: update,
    });
  }

  app.delete('/accounts/:id', {
    config,
    schema: {
      operationId: 'deleteAccount', tags, security, summary: 'Delete an account and everything in it',
      params: IdParams,
      response: withErrors({ 200: MessageSchema }, { 403: true, 404: true }),
    },
  }, async (request) => {
    await removeAccount(services, principalOf(request), request.params.id);
    return { message: 'Account was deleted successfully' };
  });
};
