import { sql } from 'kysely';
import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import type { UserRow } from '../../db/schema.ts';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', normaliseEmail(email))
    .executeTakeFirst();
}

export async function findUser(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(
  db: Executor,
  user: { name: string; email: string; passwordHash: string },
): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({ id: newId(), name: user.name, email: normaliseEmail(user.email), password_hash: user.passwordHash })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updatePasswordHash(db: Executor, id: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: new Date() }).where('id', '=', id).execute();
}
