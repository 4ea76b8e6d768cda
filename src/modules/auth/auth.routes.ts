import { Type } from 'typebox';
import { ForbiddenError, UnauthorizedError } from '../../http/app-errors.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf } from '../../http/auth.ts';
import { withErrors } from '../../http/schemas.ts';
import { Problems } from '../../http/validate.ts';
import { isUniqueViolation } from '../../db/kysely.ts';
import { revokeOtherSessions, revokeTokenById } from '../tokens/tokens.service.ts';
import { issueToken, sessionExpiry } from '../tokens/tokens.service.ts';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from '../users/users.service.ts';
import { findUser, findUserByEmail, insertUser, normaliseEmail, updatePasswordHash } from '../users/users.service.ts';
import { hashToken } from '../../lib/token-secret.ts';
import { consume } from '../../http/rate-limit.ts';
import { toUser } from '../users/users.schema.ts';
import { LoginBody, LoginResponse, PasswordBody, SignUpBody, SignUpResponse } from './auth.schema.ts';

const tags = ['Authentication'];
const security = [{ bearer: [] }];

export const authRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.post('/auth', {
    config: { auth: 'public', throttle: 'login' },
    schema: {
      operationId: 'login',
      tags,
      summary: 'Log in with email and password; returns a user session token (30 days)',
      body: LoginBody,
      response: withErrors({ 200: LoginResponse }, { 415: true, 422: true }),
    },
  }, async (request, reply) => {
    const { email, password } = request.body;
    await consume(services.limiters.loginEmail, `e:${hashToken(normaliseEmail(email))}`, reply);
    const user = await findUserByEmail(db, email);
    if (!(await verifyPassword(user?.password_hash, password)) || !user) {
      throw new UnauthorizedError('Invalid email or password');
    }
    const expiresAt = sessionExpiry();
    const { token } = await issueToken(db, { type: 'user', kind: 'session', userId: user.id, expiresAt });
    return { token, expires_at: expiresAt.toISOString(), user: { id: user.id, name: user.name, email: user.email } };
  });

  app.delete('/auth', {
    config: { auth: 'any' },
    schema: {
      operationId: 'logout',
      tags,
      security,
      summary: 'Revoke the token that makes this request',
      response: withErrors({ 200: Type.Object({}) }),
    },
  }, async (request) => {
    const principal = principalOf(request);
    const hash = await revokeTokenById(db, principal.tokenId);
    await services.forgetTokens(hash ? [hash] : []);
    return {};
  });

  app.put('/password', {
    config: { auth: 'user', throttle: 'password' },
    schema: {
      operationId: 'changePassword',
      tags,
      security,
      summary: 'Change the password; every other session of the user is logged out',
      body: PasswordBody,
      response: withErrors({ 200: Type.Object({ success: Type.Boolean() }) }, { 415: true, 422: true }),
    },
  }, async (request) => {
    const principal = principalOf(request);
    const { current_password, password, password_confirmation } = request.body.user;
    const user = await findUser(db, principal.userId!);
    if (!user) throw new UnauthorizedError();
    const problems = new Problems();
    if (!(await verifyPassword(user.password_hash, current_password))) problems.add('current_password', 'is invalid');
    if (password.length < MIN_PASSWORD_LENGTH) {
      problems.add('password', `is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`);
    }
    if (password !== password_confirmation) problems.add('password_confirmation', "doesn't match Password");
    problems.throwIfAny();
    const passwordHash = await hashPassword(password);
    const revoked = await db.transaction().execute(async (trx) => {
      await updatePasswordHash(trx, user.id, passwordHash);
      return revokeOtherSessions(trx, user.id, principal.tokenId);
    });
    await services.forgetTokens(revoked);
    return { success: true };
  });

  app.post('/users', {
    config: { auth: 'public', throttle: 'signup' },
    schema: {
      operationId: 'signUp',
      tags,
      summary: 'Create a user; returns it with a session token',
      body: SignUpBody,
      response: withErrors({ 201: SignUpResponse }, { 403: true, 415: true, 422: true }),
    },
  }, async (request, reply) => {
    if (!services.config.signupEnabled) throw new ForbiddenError('Sign-up is disabled on this server');
    const { name, email, password } = request.body.user;
    const problems = new Problems();
    const cleanName = problems.required('name', name);
    if (password.length < MIN_PASSWORD_LENGTH) {
      problems.add('password', `is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`);
    }
    if (await findUserByEmail(db, email)) problems.add('email', 'has already been taken');
    problems.throwIfAny();
    const passwordHash = await hashPassword(password);
    try {
      const result = await db.transaction().execute(async (trx) => {
        const user = await insertUser(trx, { name: cleanName, email, passwordHash });
        const session = await issueToken(trx, { type: 'user', kind: 'session', userId: user.id, expiresAt: sessionExpiry() });
        return { data: toUser(user), token: session.token };
      });
      return reply.code(201).send(result);
    } catch (error) {
      if (isUniqueViolation(error)) new Problems().add('email', 'has already been taken').throwIfAny();
      throw error;
    }
  });
};
