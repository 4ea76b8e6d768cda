import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import type { PartnerRow } from '../../db/schema.ts';

export async function insertPartner(db: Executor, name: string): Promise<PartnerRow> {
  return db.insertInto('partners').values({ id: newId(), name }).returningAll().executeTakeFirstOrThrow();
}

export async function findPartner(db: Executor, id: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirst();
}
