import { sql } from 'kysely';
import { toJson, type Executor } from '../../db/kysely.ts';

export interface BannerRow {
  id: string;
  banner: Record<string, unknown>;
  revision: number;
  /** The account's language: the banner always speaks it. */
  default_language: string;
}

const COLUMNS = ['id', 'banner', 'revision', 'default_language'] as const;

export async function findBanner(db: Executor, accountId: string): Promise<BannerRow | undefined> {
  return db.selectFrom('accounts').select(COLUMNS).where('id', '=', accountId).executeTakeFirst();
}

export async function saveBanner(db: Executor, accountId: string, banner: Record<string, unknown>): Promise<BannerRow | undefined> {
  return db
    .updateTable('accounts')
    .set({ banner: toJson(banner), updated_at: new Date() })
    .where('id', '=', accountId)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function incrementRevision(db: Executor, accountId: string): Promise<BannerRow | undefined> {
  return db
    .updateTable('accounts')
    .set({ revision: sql<number>`revision + 1` })
    .where('id', '=', accountId)
    .returning(COLUMNS)
    .executeTakeFirst();
}
