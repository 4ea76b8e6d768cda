import { found } from '../../http/app-errors.ts';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { offsetWindow, paginate } from '../../http/pagination.ts';
import { resourceRoutes, sameAccess } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf } from '../../http/auth.ts';
import { ErrorList } from '../../http/schemas.ts';
import { createApiToken } from './api-token-create.ts';
import { listTokens, revokeToken, type TokenOwner } from './tokens.repository.ts';
import { CreatedTokenResponse, CreateTokenBody, TokenListQuery, toApiToken, ApiTokenSchema } from './tokens.schema.ts';

export const tokensRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const tokens = resourceRoutes(app, { path: '/api-tokens', tags: ['API tokens'], access: sameAccess({ auth: 'any' }) });
  const ownerOf = (principal: ReturnType<typeof principalOf>): TokenOwner => ({
    partnerId: principal.type === 'partner' ? principal.partnerId : null,
    userId: principal.type === 'user' ? principal.userId : null,
    tokenId: principal.tokenId,
  });

  tokens.list({
    operationId: 'listApiTokens', summary: 'The caller\'s own live tokens (never their secrets)',
    querystring: TokenListQuery, item: ApiTokenSchema,
  }, async (request) => {
    const window = offsetWindow(request.query);
    const { rows, count } = await listTokens(db, ownerOf(principalOf(request)), { ...window, order: request.query.order ?? 'asc' });
    return { pagination: paginate(request, window, count), data: rows.map(toApiToken) };
  });

  tokens.create({
    operationId: 'createApiToken', config: { auth: 'partner-or-user' },
    summary: 'Create a named user token, or with account_id an account token (account admins and the owning partner)',
    body: CreateTokenBody, answer: CreatedTokenResponse, errors: { 403: ErrorList },
  }, async (request) => {
    const { api_token, ...bare } = request.body;
    const { row, token } = await createApiToken(db, principalOf(request), api_token ?? bare, services.config.tokensPerOwnerMax);
    return { data: toApiToken(row), token };
  });

  tokens.remove({ operationId: 'revokeApiToken', summary: 'Revoke one of the caller\'s tokens', message: 'API token was revoked' }, async (request) => {
    const revoked = found(await revokeToken(db, ownerOf(principalOf(request)), request.params.id));
    if (revoked.account_id !== null) {
      await recordAudit(db, { accountId: revoked.account_id, resourceType: 'api_token', resourceId: revoked.id, action: 'delete', before: { ...revoked, revoked_at: null }, after: { revoked_at: revoked.revoked_at } });
    }
    await services.forgetTokens([revoked.token_hash]);
  });
};
