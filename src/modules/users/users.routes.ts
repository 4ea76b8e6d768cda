import { Type } from 'typebox';
import { ForbiddenError } from '../../http/app-errors.ts';
import { principalOf } from '../../http/auth.ts';
import { resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { SIGN_UP_CLOSED } from './sign-up-closed.ts';
import { PasswordBody, SignUpBody, SignUpResponse } from './users.schema.ts';
import { changePassword, signUp } from './users.service.ts';
import { ErrorList } from '../../http/schemas.ts';

/** A user's own routes: public sign-up and changing one's password. */
export const usersRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const users = resourceRoutes(app, { tags: ['Authentication'] });

  users.route('PUT', '/password', {
    rule: { auth: 'user', throttle: 'password' }, operationId: 'changePassword',
    summary: 'Change the password; every other session of the user is logged out',
    body: PasswordBody, response: { 200: Type.Object({ success: Type.Boolean() }) },
  }, async (request) => {
    await services.forgetTokens(await changePassword(db, principalOf(request), request.body.user));
    return { success: true };
  });

  users.route('POST', '/users', {
    rule: { auth: 'public', throttle: 'signup' }, operationId: 'signUp',
    summary: 'Create a user; returns it with a session token',
    body: SignUpBody, response: { 201: SignUpResponse, 403: ErrorList },
    // Refused before the body is read: with sign-up off, what the body holds does not matter.
    preValidation: async () => {
      if (!services.config.signupEnabled) throw new ForbiddenError(SIGN_UP_CLOSED);
    },
  }, async (request, reply) => reply.code(201).send(await signUp(db, request.body.user)));
};
