import { found } from '../../http/app-errors.ts';
import { listOf, offsetWindow, paginate } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf } from '../../http/auth.ts';
import { ErrorList, IdParams, MessageSchema } from '../../http/schemas.ts';
import { createApiToken } from './api-token-create.ts';
import { listTokens, revokeToken, type TokenOwner } from './tokens.repository.ts';
import { CreatedTokenResponse, CreateTokenBody, TokenListQuery, toApiToken, ApiTokenSchema } from './tokens.schema.ts';

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
    const { api_token, ...bare } = request.body;
    const { row, token } = await createApiToken(db, principalOf(request), api_token ?? bare, services.config.tokensPerOwnerMax);
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
