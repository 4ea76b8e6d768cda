import { sql } from 'kysely';
import { newId } from '../db/ids.ts';
import type { Executor } from '../db/kysely.ts';
import type { CategoryRow } from '../db/schema.ts';
import { accountLanguage } from '../modules/categories/categories.repository.ts';
import { slugify } from '../modules/categories/slug.ts';
import { STANDARD_CATEGORY_DEFINITIONS, type StandardCategory } from './knowledge/categories.ts';

/**
 * The account's category for a standard one: a category whose slug or name is one of its names
 * (`statistics` serves for analytics), or else a new one the AI creates (`created`).
 */
export async function categoryFor(
  db: Executor,
  accountId: string,
  standard: StandardCategory,
): Promise<{ category: CategoryRow; created: boolean }> {
  const definition = STANDARD_CATEGORY_DEFINITIONS[standard];
  const names = definition.synonyms.map(slugify);
  const existing = await db
    .selectFrom('categories')
    .selectAll()
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('slug', 'in', names), eb(sql<string>`lower(name)`, 'in', definition.synonyms)]))
    // The standard slug first, then the oldest.
    .orderBy(sql`slug = ${standard}`, 'desc')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  if (existing) return { category: existing, created: false };

  // Another instance may create it at the same moment: the unique slug keeps one, and it is taken.
  const inserted = await db
    .insertInto('categories')
    .values({
      id: newId(),
      account_id: accountId,
      name: definition.name,
      slug: standard,
      description: definition.description,
      required: definition.required,
      default_language: await accountLanguage(db, accountId),
    })
    .onConflict((oc) => oc.columns(['account_id', 'slug']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { category: inserted, created: true };
  const raced = await db
    .selectFrom('categories')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('slug', '=', standard)
    .executeTakeFirstOrThrow();
  return { category: raced, created: false };
}
