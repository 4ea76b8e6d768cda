import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.ts';
import { insertAccount, markVendorsSetup } from './modules/accounts/accounts.repository.ts';
import { NEW_ACCOUNT_AI_FEATURES } from './modules/accounts/accounts.schema.ts';
import { insertMembership } from './modules/account-users/account-users.repository.ts';
import { insertCategory } from './modules/categories/categories.repository.ts';
import { insertGroup } from './modules/groups/groups.repository.ts';
import { insertPartner } from './modules/partners/partners.repository.ts';
import { createStorageItem } from './modules/storage-items/storage-items.service.ts';
import type { StorageItemFields } from './modules/storage-items/storage-items.schema.ts';
import { issueToken } from './modules/tokens/tokens.service.ts';
import { hashPassword } from './lib/passwords.ts';
import { insertUser } from './modules/users/users.repository.ts';

const CATEGORIES = [
  { slug: 'necessary', name: 'Necessary', required: true, description: 'Needed for the site to work; always on.' },
  { slug: 'analytics', name: 'Analytics', required: false, description: 'Helps us understand how visitors use the site.' },
  { slug: 'marketing', name: 'Marketing', required: false, description: 'Shows relevant advertising on other sites.' },
] as const;

type Slug = (typeof CATEGORIES)[number]['slug'];

/** Finalised, so the banner shows them; `_ga_*` is a wildcard that `_ga_D3M0` is linked to. */
const STORAGE_ITEMS: (Omit<StorageItemFields, 'category_id'> & { name: string; category: Slug })[] = [
  { category: 'necessary', name: 'session_id', company_name: 'Demo Shop', duration: 'Session', same_site: 'Lax', description: 'Keeps the visitor signed in.' },
  { category: 'analytics', name: '_ga', company_name: 'Google', duration: '2 years', same_site: 'Lax', description: 'Distinguishes visitors.' },
  { category: 'analytics', name: '_ga_*', company_name: 'Google', duration: '2 years', same_site: 'Lax', description: 'Keeps the state of a session.' },
  { category: 'analytics', name: '_ga_D3M0', company_name: 'Google', duration: '2 years', same_site: 'Lax', description: 'Keeps the state of a session.' },
  { category: 'marketing', name: '_fbp', company_name: 'Meta', duration: '3 months', same_site: 'None', description: 'Delivers advertising.' },
];

/**
 * A complete demo tenant: partner → group → account with an admin user, a small catalogue
 * (categories and finalised storage items) and a token of each type. The tenant is made in one
 * transaction; the storage items then go through the same service as the API.
 */
export async function seedDemo(database: Kysely<Database>) {
  const suffix = randomBytes(3).toString('hex');
  const password = randomBytes(9).toString('base64url');
  const passwordHash = await hashPassword(password);
  const tenant = await database.transaction().execute(async (db) => {
    const partner = await insertPartner(db, `Demo Agency ${suffix}`);
    const group = await insertGroup(db, partner.id, { name: 'Demo customers', external_id: `demo-${suffix}` });
    const user = await insertUser(db, { name: 'Demo Admin', email: `admin-${suffix}@demo.consentry.local`, passwordHash });
    const account = await insertAccount(db, {
      name: 'Demo Shop',
      domain: 'shop.example.com',
      allowed_domains: ['localhost'],
      group_id: group.id,
      owner_id: user.id,
      default_language: 'en',
      ai_features: NEW_ACCOUNT_AI_FEATURES,
      demo: true,
    });
    await insertMembership(db, account.id, user.id, true);
    const categories = [];
    for (const category of CATEGORIES) {
      categories.push(await insertCategory(db, account.id, { ...category, default_language: account.default_language }));
    }
    await markVendorsSetup(db, account.id);
    const tokens = {
      partner: (await issueToken(db, { type: 'partner', kind: 'api', name: 'demo', partnerId: partner.id })).token,
      user: (await issueToken(db, { type: 'user', kind: 'api', name: 'demo', userId: user.id })).token,
      account: (await issueToken(db, { type: 'account', kind: 'api', name: 'demo', userId: user.id, accountId: account.id })).token,
    };
    return { partner, group, user, account, categories, tokens };
  });

  const { partner, group, user, account, categories, tokens } = tenant;
  const storageItems = [];
  for (const { category, ...item } of STORAGE_ITEMS) {
    const categoryId = categories.find((c) => c.slug === category)!.id;
    const row = await createStorageItem(
      database,
      account.id,
      { ...item, category_id: categoryId, domain: '.shop.example.com', status: 'finalised' },
      { createdBy: 'api', approver: 'API' },
    );
    storageItems.push({ id: row.id, name: row.name, category_id: row.category_id });
  }
  return {
    partner: { id: partner.id, name: partner.name },
    group: { id: group.id, name: group.name },
    account: { id: account.id, name: account.name, domain: account.domain },
    user: { id: user.id, email: user.email, password },
    categories: categories.map(({ id, slug, name, required }) => ({ id, slug, name, required })),
    storage_items: storageItems,
    tokens,
  };
}
