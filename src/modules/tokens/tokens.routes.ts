import { isId } from '../../db/ids.ts';
import { ForbiddenError, found, NEEDS_ADMIN } from '../../http/app-errors.ts';
import { listOf, offsetWindow, paginate } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf } from '../../http/auth.ts';
import { ErrorList, IdParams, MessageSchema } from '../../http/schemas.ts';
import { Problems } from '../../http/validation.ts';
import { findMembership } from '../account-users/account-users.service.ts';
import { findAccount } from '../accounts/accounts.service.ts';
import { countLiveNamedTokens, listTokens, revokeToken, type TokenOwner } from './tokens.repository.ts';
import { CreatedTokenResponse, CreateTokenBody, TokenListQuery, toApiToken, ApiTokenSchema } from './tokens.schema.ts';
import { issueToken } from './tokens.service.ts';

const tags = ['API tokens'];

export const tokensRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const ownerOf = (principal: ReturnType<typeof principalOf>): TokenOwner => ({
    partnerId: principal.type === 'partner' ? principal.partnerId : null,
    userId: principal.type === 'user' ? principal.userId : null,
    tokenId: principal.tokenId,
  });

  app.get('/api-tokens', {
    config: { auth: 'any' },
    schema: {
      operationId: 'listApiTokens', tags, summary: 'The caller\'s own live tokens (never their secrets)',
      querystring: TokenListQuery,
      response: { 200: listOf(ApiTokenSchema) },
    },
  }, async (request) => {
    const window = offsetWindow(request.query);
    const { rows, count } = await listTokens(db, ownerOf(principalOf(request)), { ...window, order: request.query.order ?? 'asc' });
    return { pagination: paginate(request, window, count), data: rows.map(toApiToken) };
  });

  app.post('/api-tokens', {
    config: { auth: 'partner-or-user' },
    schema: {
      operationId: 'createApiToken', tags,
      summary: 'Create a named user token, or with account_id an account token (account admins and the owning partner)',
      body: CreateTokenBody,
      response: { 201: CreatedTokenResponse, 403: ErrorList },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    const { api_token, ...bare } = request.body;
    const fields = api_token ?? bare;
    const problems = new Problems();
    const name = fields.name?.trim() || null;
    const expiresAt = fields.expires_at ? new Date(fields.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) problems.add('expires_at', 'must be in the future');
    const accountId = fields.account_id;
    if (accountId === undefined && principal.type === 'partner') problems.add('account_id', "can't be blank");
    if (accountId !== undefined && !(isId(accountId) && (await findAccount(db, principal, accountId)))) {
      problems.add('account', 'must exist');
    }
    const cap = services.config.tokensPerOwnerMax;
    if ((await countLiveNamedTokens(db, principal)) >= cap) {
      problems.add('api_tokens', `are limited to ${cap} live tokens per user or partner; revoke one first`);
    }
    problems.throwIfAny();
    if (accountId !== undefined && principal.type === 'user') {
      const membership = await findMembership(db, accountId, principal.userId!);
      if (!membership?.admin) throw new ForbiddenError(NEEDS_ADMIN);
    }
    const { row, token } = await issueToken(db, {
      type: accountId === undefined ? 'user' : 'account',
      kind: 'api',
      name,
      partnerId: principal.partnerId,
      userId: principal.userId,
      accountId: accountId ?? null,
      expiresAt,
    });
    return reply.code(201).send({ data: toApiToken(row), token });
  });

  app.delete('/api-tokens/:id', {
    config: { auth: 'any' },
    schema: {
      operationId: 'revokeApiToken', tags, summary: 'Revoke one of the caller\'s tokens',
      params: IdParams,
      response: { 200: MessageSchema },
    },
  }, async (request) => {
    const hash = found(await revokeToken(db, ownerOf(principalOf(request)), request.params.id));
    await services.forgetTokens([hash]);
    return { message: 'API token was revoked' };
  });
};
