import { randomBytes } from 'node:crypto';
import type { Executor } from './db/kysely.ts';
import { insertAccount, insertMembership } from './modules/accounts/accounts.repository.ts';
import { insertGroup } from './modules/groups/groups.repository.ts';
import { insertPartner } from './modules/partners/partners.repository.ts';
import { issueToken } from './modules/tokens/tokens.service.ts';
import { hashPassword } from './modules/users/passwords.ts';
import { insertUser } from './modules/users/users.repository.ts';

/** A complete demo tenant: partner → group → account with an admin user, and a token of each type. */
export async function seedDemo(db: Executor) {
  const suffix = randomBytes(3).toString('hex');
  const password = randomBytes(9).toString('base64url');
  const partner = await insertPartner(db, `Demo Agency ${suffix}`);
  const group = await insertGroup(db, partner.id, { name: 'Demo customers', external_id: `demo-${suffix}` });
  const user = await insertUser(db, { name: 'Demo Admin', email: `admin-${suffix}@demo.consentry.local`, passwordHash: await hashPassword(password) });
  const account = await insertAccount(db, {
    name: 'Demo Shop',
    domain: 'shop.example.com',
    allowed_domains: ['localhost'],
    group_id: group.id,
    owner_id: user.id,
    default_language: 'en',
  });
  await insertMembership(db, account.id, user.id, true);
  const partnerToken = await issueToken(db, { type: 'partner', kind: 'api', name: 'demo', partnerId: partner.id });
  const userToken = await issueToken(db, { type: 'user', kind: 'api', name: 'demo', userId: user.id });
  const accountToken = await issueToken(db, { type: 'account', kind: 'api', name: 'demo', userId: user.id, accountId: account.id });
  return {
    partner: { id: partner.id, name: partner.name },
    group: { id: group.id, name: group.name },
    account: { id: account.id, name: account.name, domain: account.domain },
    user: { id: user.id, email: user.email, password },
    tokens: { partner: partnerToken.token, user: userToken.token, account: accountToken.token },
  };
}
