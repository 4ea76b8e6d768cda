import { Type } from 'typebox';
import { principalOf } from '../../http/auth.ts';
import { resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { LoginBody, LoginResponse, MeResponse } from './auth.schema.ts';
import { logIn, logOut, whoAmI } from './auth.service.ts';
import { limitedLogIn } from './login-limits.ts';

export const authRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const session = resourceRoutes(app, { tags: ['Authentication'] });

  session.route('POST', '/auth', {
    rule: { auth: 'public', throttle: 'login' }, operationId: 'login',
    summary: 'Log in with email and password; returns a user session token (30 days)',
    body: LoginBody, response: { 200: LoginResponse },
  }, async (request, reply) => {
    const { email, password } = request.body;
    return limitedLogIn(services.limiters, reply, request.ip, email, () => logIn(db, email, password));
  });

  session.route('DELETE', '/auth', {
    rule: { auth: 'any' }, operationId: 'logout', summary: 'Revoke the token that makes this request',
    response: { 200: Type.Object({}) },
  }, async (request) => {
    const hash = await logOut(db, principalOf(request));
    await services.forgetTokens(hash ? [hash] : []);
    return {};
  });

  session.route('GET', '/me', { rule: { auth: 'any' }, operationId: 'me', summary: 'Who the token belongs to', response: { 200: MeResponse } }, async (request) => {
    // An account token's account comes with its onboarding status: the visits counted so far first.
    if (principalOf(request).accountId) await services.visits.written();
    return { data: await whoAmI(db, principalOf(request)) };
  });
};
