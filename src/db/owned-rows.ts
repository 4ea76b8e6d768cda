import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { newId } from './ids.ts';
import type { Executor } from './kysely.ts';
import type { Database } from './schema.ts';

/**
 * The statements every table of a tenant's records answers alike — one row by id, a new row, the
 * row changed, the row deleted, a unique value taken — each filtered by the tenant's column
 * (`account_id`, or `partner_id` for groups). A repository keeps its own functions and names its
 * table and tenant in them: `updateCategory(db, accountId, id, fields)` is
 * `updateOwnedRow(db, 'categories', ['account_id', accountId], id, fields)`.
 */

/** The column naming the tenant a table's rows belong to. */
type TenantColumn = 'account_id' | 'partner_id';

/** The tables whose rows have an id, a tenant column and `updated_at`. */
type OwnedTable = {
  [T in keyof Database]: Database[T] extends { id: string; updated_at: unknown }
    ? (Extract<keyof Database[T], TenantColumn> extends never ? never : T)
    : never;
}[keyof Database];

/** A row's tenant: the table's tenant column and its value (`['account_id', accountId]`). */
export type Tenant<T extends OwnedTable> = readonly [Extract<keyof Database[T], TenantColumn>, string];

type Row<T extends OwnedTable> = Selectable<Database[T]>;

/**
 * The table as the statements below see it: named at run time, which Kysely's types cannot follow.
 * The functions' signatures carry the types, checked at each call.
 */
function table(db: Executor, name: OwnedTable, [column, tenantId]: readonly [string, string]) {
  const any = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  return { any, from: name as string, column, tenantId };
}

/** The tenant's row with this id, or undefined. */
export async function findOwnedRow<T extends OwnedTable>(db: Executor, name: T, tenant: Tenant<T>, id: string): Promise<Row<T> | undefined> {
  const { any, from, column, tenantId } = table(db, name, tenant);
  const row = await any.selectFrom(from).selectAll().where(column, '=', tenantId).where('id', '=', id).executeTakeFirst();
  return row as Row<T> | undefined;
}

/** A new row of the tenant, given a new id; `fields` are its other columns. */
export async function insertOwnedRow<T extends OwnedTable>(
  db: Executor, name: T, tenant: Tenant<T>, fields: Omit<Insertable<Database[T]>, 'id' | Tenant<T>[0]>,
): Promise<Row<T>> {
  const { any, from, column, tenantId } = table(db, name, tenant);
  const row = await any.insertInto(from).values({ id: newId(), [column]: tenantId, ...fields }).returningAll().executeTakeFirstOrThrow();
  return row as Row<T>;
}

/** The tenant's row with this id changed by `fields`, `updated_at` stamped; undefined when there is none. */
export async function updateOwnedRow<T extends OwnedTable>(
  db: Executor, name: T, tenant: Tenant<T>, id: string, fields: Updateable<Database[T]>,
): Promise<Row<T> | undefined> {
  const { any, from, column, tenantId } = table(db, name, tenant);
  const row = await any
    .updateTable(from)
    .set({ ...fields, updated_at: new Date() })
    .where(column, '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row as Row<T> | undefined;
}

/** Deletes the tenant's row with this id; false when there was none. */
export async function deleteOwnedRow<T extends OwnedTable>(db: Executor, name: T, tenant: Tenant<T>, id: string): Promise<boolean> {
  const { any, from, column, tenantId } = table(db, name, tenant);
  const result = await any.deleteFrom(from).where(column, '=', tenantId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Whether a row of the tenant other than `exceptId` holds this value in a column unique per tenant (a slug). */
export async function ownedValueTaken<T extends OwnedTable>(
  db: Executor, name: T, tenant: Tenant<T>, unique: keyof Database[T] & string, value: string, exceptId?: string,
): Promise<boolean> {
  const { any, from, column, tenantId } = table(db, name, tenant);
  let query = any.selectFrom(from).select('id').where(column, '=', tenantId).where(unique as string, '=', value);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}
