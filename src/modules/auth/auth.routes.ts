import { Type } from 'typebox';
import { principalOf } from '../../http/auth.ts';
import type { RoutesPlugin } from '../../services.ts';
import { LoginBody, LoginResponse, MeResponse } from './auth.schema.ts';
import { logIn, logOut, whoAmI } from './auth.service.ts';
import { limitedLogIn } from './login-limits.ts';

const tags = ['Authentication'];

export const authRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.post('/auth', {
    config: { auth: 'public', throttle: 'login' },
    schema: {
      operationId: 'login',
      tags,
      summary: 'Log in with email and password; returns a user session token (30 days)',
      body: LoginBody,
      response: { 200: LoginResponse },
    },
  }, async (request, reply) => {
    const { email, password } = request.body;
    return limitedLogIn(services.limiters, reply, request.ip, email, () => logIn(db, email, password));
  });

  app.delete('/auth', {
    config: { auth: 'any' },
    schema: {
      operationId: 'logout',
      tags,
      summary: 'Revoke the token that makes this request',
      response: { 200: Type.Object({}) },
    },
  }, async (request) => {
    const hash = await logOut(db, principalOf(request));
    await services.forgetTokens(hash ? [hash] : []);
    return {};
  });

  app.get('/me', {
    config: { auth: 'any' },
    schema: {
      operationId: 'me', tags: ['Authentication'],
      summary: 'Who the token belongs to',
      response: { 200: MeResponse },
    },
  }, async (request) => {
    // An account token's account comes with its onboarding status: the visits counted so far first.
    if (principalOf(request).accountId) await services.visits.written();
    return { data: await whoAmI(db, principalOf(request)) };
  });
};
