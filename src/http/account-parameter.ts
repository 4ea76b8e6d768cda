import type { FastifyInstance } from 'fastify';
import { Type, type TObject } from 'typebox';

/** `?account_id=`: which of a user's accounts an account route acts on (auth.ts reads it). */
export const AccountIdParameter = {
  account_id: Type.Optional(Type.String({ format: 'uuid', description: 'The account to act on, for a user token of several accounts; an account token may name only its own account (another one is 401)' })),
};

/**
 * Every account route takes `account_id` in its query. It is added here, to each route declaring
 * `auth: 'account'` as it is registered, so that no route's schema or OpenAPI entry can miss it.
 */
export function declareAccountParameter(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.auth !== 'account') return;
    const query = route.schema?.querystring as TObject | undefined;
    route.schema = {
      ...route.schema,
      querystring: query ? { ...query, properties: { ...query.properties, ...AccountIdParameter } } : Type.Object(AccountIdParameter),
    };
  });
}
