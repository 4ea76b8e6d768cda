import type { FastifyRequest } from 'fastify';
import { isId } from '../../db/ids.ts';
import { ForbiddenError, found, NEEDS_ADMIN } from '../../http/app-errors.ts';
import type { Principal } from '../../http/auth.ts';
import { listOf, pageWindow, paginate } from '../../http/pagination.ts';
import { principalOf, type RoutesPlugin } from '../../http/routes-plugin.ts';
import { IdParams, MessageSchema, withErrors } from '../../http/schemas.ts';
import { Problems } from '../../http/validate.ts';
import type { Executor } from '../../db/kysely.ts';
import {
  deleteAccount,
  findAccount,
  findAccountById,
  findMembership,
  insertAccount,
  insertMembership,
  listAccounts,
  memberIdsOf,
  partnerOwnsGroup,
  updateAccount,
  type NewAccount,
} from './accounts.repository.ts';
import {
  AccountListQuery,
  AccountSchema,
  CreateAccountBody,
  toAccount,
  UpdateAccountBody,
  type AccountFields,
  type AccountWithStatus,
} from './accounts.schema.ts';
import { accountTokenHashes } from '../tokens/tokens.repository.ts';
import { normaliseDomain } from './domains.ts';

const tags = ['Accounts'];
const security = [{ bearer: [] }];
const config = { auth: 'any' } as const;

/**
 * Checks and normalises account fields; 422 with every problem at once. `currentGroupId` is the
 * account's group (null for a new one): only a partner moves an account, and only into its own groups.
 */
async function clean(
  db: Executor,
  principal: Principal,
  fields: AccountFields,
  currentGroupId: string | null,
): Promise<Partial<NewAccount> & Pick<AccountFields, 'ai_features' | 'scan_schedule'>> {
  const problems = new Problems();
  const out: Partial<NewAccount> & Pick<AccountFields, 'ai_features' | 'scan_schedule'> = {
    ai_features: fields.ai_features,
    scan_schedule: fields.scan_schedule,
  };
  if (fields.name !== undefined) out.name = problems.required('name', fields.name);
  if (fields.domain !== undefined) {
    const domain = normaliseDomain(fields.domain);
    if (fields.domain.trim() === '') problems.add('domain', "can't be blank");
    else if (!domain) problems.add('domain', 'is invalid');
    out.domain = domain;
  }
  if (fields.allowed_domains !== undefined) {
    const domains = fields.allowed_domains.map(normaliseDomain);
    if (domains.some((domain) => !domain)) problems.add('allowed_domains', 'is invalid');
    out.allowed_domains = [...new Set(domains.filter((domain): domain is string => !!domain))];
  }
  if (fields.default_language !== undefined) out.default_language = fields.default_language;
  if (fields.https_only !== undefined) out.https_only = fields.https_only;
  if (fields.consent_retention_days !== undefined) out.consent_retention_days = fields.consent_retention_days;
  if (fields.group_id !== undefined) {
    const groupId = fields.group_id;
    const allowed = principal.type === 'partner'
      ? isId(groupId) && (await partnerOwnsGroup(db, principal.partnerId!, groupId))
      : groupId === currentGroupId;
    if (!allowed) problems.add('group', 'must exist');
    out.group_id = groupId;
  }
  problems.throwIfAny();
  return out;
}

/** A write on an account the caller reaches: partners and account tokens may, users must be admins. */
async function assertCanWrite(db: Executor, principal: Principal, account: AccountWithStatus, action: 'update' | 'delete') {
  if (principal.type === 'partner') return;
  if (principal.type === 'account') {
    if (action === 'delete') throw new ForbiddenError('Only the account owner or its partner can delete an account');
    return;
  }
  if (action === 'delete') {
    if (account.owner_id !== principal.userId) {
      throw new ForbiddenError('Only the account owner or its partner can delete an account');
    }
    return;
  }
  const membership = await findMembership(db, account.id, principal.userId!);
  if (!membership?.admin) throw new ForbiddenError(NEEDS_ADMIN);
}

export const accountsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  async function reachable(request: FastifyRequest, id: string) {
    const account = found(await findAccount(db, principalOf(request), id));
    return account;
  }

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
    const { rows, count } = await listAccounts(db, principalOf(request), { onboarding_status, group_id }, window);
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
  }, async (request, reply) => {
    const principal = principalOf(request);
    if (principal.type === 'account') throw new ForbiddenError('Account tokens cannot create accounts');
    const body = request.body.account;
    const fields = await clean(db, principal, { ...body, group_id: body.group_id ?? null }, null);
    const id = await db.transaction().execute(async (trx) => {
      const row = await insertAccount(trx, {
        name: fields.name!,
        domain: fields.domain!,
        allowed_domains: fields.allowed_domains ?? [],
        group_id: fields.group_id ?? null,
        owner_id: principal.userId,
        default_language: fields.default_language ?? 'en',
        https_only: fields.https_only ?? true,
        consent_retention_days: fields.consent_retention_days,
      });
      if (principal.userId) await insertMembership(trx, row.id, principal.userId, true);
      return row.id;
    });
    return reply.code(201).send(toAccount((await findAccountById(db, id))!));
  });

  app.get('/accounts/:id', {
    config,
    schema: {
      operationId: 'getAccount', tags, security, summary: 'One account',
      params: IdParams,
      response: withErrors({ 200: AccountSchema }, { 404: true }),
    },
  }, async (request) => toAccount(await reachable(request, request.params.id)));

  const update = async (request: FastifyRequest<{ Params: { id: string }; Body: { account: AccountFields } }>) => {
    const principal = principalOf(request);
    const account = await reachable(request, request.params.id);
    await assertCanWrite(db, principal, account, 'update');
    await updateAccount(db, account.id, await clean(db, principal, request.body.account, account.group_id));
    await services.forgetBanner([account.id]);
    return toAccount((await findAccountById(db, account.id))!);
  };
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
    const principal = principalOf(request);
    const account = await reachable(request, request.params.id);
    await assertCanWrite(db, principal, account, 'delete');
    const { tokenHashes, memberIds } = await db.transaction().execute(async (trx) => {
      const gone = { tokenHashes: await accountTokenHashes(trx, account.id), memberIds: await memberIdsOf(trx, account.id) };
      await deleteAccount(trx, account.id);
      return gone;
    });
    await services.forgetTokens(tokenHashes);
    await services.forgetMemberships(memberIds);
    await services.forgetCategories([account.id]);
    return { message: 'Account was deleted successfully' };
  });
};
