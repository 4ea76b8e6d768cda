import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/services.ts';
import { insertAccount } from '../../src/modules/accounts/accounts.repository.ts';
import { insertMembership } from '../../src/modules/account-users/account-users.repository.ts';
import { insertGroup } from '../../src/modules/groups/groups.repository.ts';
import { insertPartner } from '../../src/modules/partners/partners.repository.ts';
import { issueToken } from '../../src/modules/tokens/tokens.service.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { insertUser } from '../../src/modules/users/users.repository.ts';
import { call } from './app.ts';

export const PASSWORD = 'correct horse battery';
let passwordHash: Promise<string> | undefined;

export async function createUser(services: Services, name = 'User') {
  passwordHash ??= hashPassword(PASSWORD);
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${randomBytes(4).toString('hex')}@example.test`;
  const user = await insertUser(services.db, { name, email, passwordHash: await passwordHash });
  const { token } = await issueToken(services.db, { type: 'user', kind: 'api', userId: user.id });
  return { user, token };
}

/**
 * A partner with one group and one account; the account has an admin (its owner) and a
 * non-admin member; a token of every type.
 */
export async function createTenant(services: Services, label = 'Tenant') {
  const { db } = services;
  const partner = await insertPartner(db, `${label} partner`);
  const partnerToken = (await issueToken(db, { type: 'partner', kind: 'api', partnerId: partner.id })).token;
  const group = await insertGroup(db, partner.id, { name: `${label} group` });
  const admin = await createUser(services, `${label} admin`);
  const member = await createUser(services, `${label} member`);
  const account = await insertAccount(db, {
    name: `${label} site`,
    domain: `${label.toLowerCase().replace(/\W+/g, '')}.example.com`,
    allowed_domains: [],
    group_id: group.id,
    owner_id: admin.user.id,
    default_language: 'en',
  });
  await insertMembership(db, account.id, admin.user.id, true);
  await insertMembership(db, account.id, member.user.id, false);
  const accountToken = (await issueToken(db, { type: 'account', kind: 'api', userId: admin.user.id, accountId: account.id })).token;
  return {
    partner,
    group,
    account,
    admin: admin.user,
    member: member.user,
    tokens: { partner: partnerToken, admin: admin.token, member: member.token, account: accountToken },
  };
}
export type Tenant = Awaited<ReturnType<typeof createTenant>>;

/** A token that was valid and has been revoked through the API. */
export async function revokedToken(app: FastifyInstance, services: Services, userId: string): Promise<string> {
  const { token } = await issueToken(services.db, { type: 'user', kind: 'api', userId });
  const logout = await call(app, 'DELETE', '/api/v1/auth', { token });
  if (logout.status !== 200) throw new Error(`could not revoke a token: ${logout.status}`);
  return token;
}
