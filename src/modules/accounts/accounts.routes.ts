import { BadRequestError } from '../../http/app-errors.ts';
import { principalOf } from '../../http/auth.ts';
import { normaliseDomain } from '../../lib/hosts.ts';
import { pageWindow, paginate } from '../../http/pagination.ts';
import { resourceRoutes, sameAccess } from '../../http/resource-routes.ts';
import { ErrorList } from '../../http/schemas.ts';
import type { RoutesPlugin } from '../../services.ts';
import { AccountListQuery, AccountSchema, CreateAccountBody, toAccount, UpdateAccountBody } from './accounts.schema.ts';
import { listAccounts } from './accounts.repository.ts';
import { assertMayCreateAccount, changeAccount, createAccount, reachableAccount, removeAccount } from './accounts.service.ts';

/** The service's refusals: an account token creating, a member not an admin changing, one not the owner deleting. */
const refused = { 403: ErrorList };

export const accountsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const accounts = resourceRoutes(app, { path: '/accounts', tags: ['Accounts'], access: sameAccess({ auth: 'any' }) });

  accounts.list({
    operationId: 'listAccounts', summary: 'List the accounts the token reaches',
    querystring: AccountListQuery, item: AccountSchema,
  }, async (request) => {
    const window = pageWindow(request.query);
    const { onboarding_status, group_id } = request.query;
    const domain = request.query.domain === undefined ? undefined : normaliseDomain(request.query.domain);
    if (domain === undefined && request.query.domain !== undefined) throw new BadRequestError('domain is invalid');
    await services.visits.written();
    const { rows, count } = await listAccounts(db, principalOf(request), { onboarding_status, group_id, domain }, window);
    return { pagination: paginate(request, window, count), data: rows.map(toAccount) };
  });

  accounts.create({
    operationId: 'createAccount',
    summary: 'Create an account: a partner names one of its groups; a user becomes its owner and admin',
    body: CreateAccountBody, answer: AccountSchema, errors: refused,
    // Refused before the body is read: an account token may not create accounts, whatever it sends.
    preValidation: async (request) => assertMayCreateAccount(principalOf(request)),
  }, async (request) => toAccount(await createAccount(services, principalOf(request), request.body.account)));

  accounts.one({ operationId: 'getAccount', summary: 'One account', answer: AccountSchema }, async (request) => {
    await services.visits.written();
    return toAccount(await reachableAccount(db, principalOf(request), request.params.id));
  });

  for (const method of ['PUT', 'PATCH'] as const) {
    accounts.change({
      method, operationId: method === 'PUT' ? 'updateAccount' : 'patchAccount',
      summary: 'Update an account (fields not sent stay as they are)',
      body: UpdateAccountBody, answer: AccountSchema, errors: refused,
    }, async (request) => toAccount(await changeAccount(services, principalOf(request), request.params.id, request.body.account)));
  }

  accounts.remove({
    operationId: 'deleteAccount', summary: 'Delete an account and everything in it',
    message: 'Account was deleted successfully', errors: refused,
  }, (request) => removeAccount(services, principalOf(request), request.params.id));
};
