import { newId } from '../../src/db/ids.ts';
import type { Services } from '../../src/services.ts';

/** A category stored directly, for tests of other resources that need one. */
export async function insertCategory(services: Services, accountId: string, fields: { name?: string; required?: boolean; published?: boolean } = {}) {
  const name = fields.name ?? `Category ${newId().slice(-6)}`;
  return services.db
    .insertInto('categories')
    .values({
      id: newId(),
      account_id: accountId,
      name,
      slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      required: fields.required ?? false,
      published: fields.published ?? true,
      default_language: 'en',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The categories a consent is mostly given over: a required Necessary, then Analytics and Marketing. */
export async function insertUsualCategories(services: Services, accountId: string) {
  return {
    necessary: await insertCategory(services, accountId, { name: 'Necessary', required: true }),
    analytics: await insertCategory(services, accountId, { name: 'Analytics' }),
    marketing: await insertCategory(services, accountId, { name: 'Marketing' }),
  };
}

/** The account's page views of every day, once what the server counted in memory is written. */
export async function pageviewsOf(services: Services, accountId: string): Promise<number> {
  await services.visits.flush();
  const rows = await services.db.selectFrom('account_daily_stats').select('pageviews').where('account_id', '=', accountId).execute();
  return rows.reduce((sum, row) => sum + row.pageviews, 0);
}

/**
 * The account's page views once the count has stopped moving: the beacons of pages an earlier test
 * left (a closed browser context sends them late) can still be arriving when a test starts counting.
 */
export async function settledPageviewsOf(services: Services, accountId: string): Promise<number> {
  let count = await pageviewsOf(services, accountId);
  for (let previous = -1; previous !== count;) {
    previous = count;
    await new Promise((resolve) => setTimeout(resolve, 500));
    count = await pageviewsOf(services, accountId);
  }
  return count;
}
