import type { Executor } from '../../db/kysely.ts';

export interface WidgetAccount {
  id: string;
  name: string;
  domain: string;
  allowed_domains: string[];
  default_language: string;
  https_only: boolean;
}

export async function findWidgetAccount(db: Executor, id: string): Promise<WidgetAccount | undefined> {
  return db
    .selectFrom('accounts')
    .select(['id', 'name', 'domain', 'allowed_domains', 'default_language', 'https_only'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The banner's content: every published category, with the finalised storage items and the
 * services (the third parties that receive data) in each.
 */
export async function bannerContent(db: Executor, accountId: string) {
  const [categories, items, services] = await Promise.all([
    db
      .selectFrom('categories')
      .select(['id', 'slug', 'name', 'description', 'required', 'sale_or_sharing', 'translations'])
      .where('account_id', '=', accountId)
      // A category the AI created waits for an admin before visitors see it.
      .where('published', '=', true)
      .orderBy('required', 'desc')
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('storage_items')
      .select(['id', 'category_id', 'name', 'domain', 'duration', 'description', 'company_name', 'storage_type', 'is_wildcard_cookie', 'translations'])
      .where('account_id', '=', accountId)
      .where('status', '=', 'finalised')
      .where('category_id', 'is not', null)
      .orderBy('name')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('services')
      .select(['id', 'category_id', 'slug', 'name', 'description', 'company_name', 'privacy_policy_url', 'translations'])
      .where('account_id', '=', accountId)
      .where('category_id', 'is not', null)
      .orderBy('name')
      .orderBy('id')
      .execute(),
  ]);
  return categories.map((category) => ({
    ...category,
    storage_items: items.filter((item) => item.category_id === category.id).map(({ category_id: _, ...item }) => item),
    services: services.filter((service) => service.category_id === category.id).map(({ category_id: _, ...service }) => service),
  }));
}
