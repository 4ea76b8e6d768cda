import { sql } from 'kysely';
import { toJson, type Executor } from '../../db/kysely.ts';
import type { StoredConsentMode, StoredRegionalRule } from '../../db/schema.ts';

export interface BannerRow {
  id: string;
  banner: Record<string, unknown>;
  revision: number;
  /** The account's language: the banner always speaks it. */
  default_language: string;
  regional_rules: StoredRegionalRule[] | null;
  default_mode: string | null;
  consent_mode: StoredConsentMode | null;
}

/** The regional columns as written: JSON text, null for the defaults; a column left undefined is not changed. */
export interface RegionalValues {
  regional_rules?: string | null;
  default_mode?: string | null;
  consent_mode?: string | null;
}

const COLUMNS = ['id', 'banner', 'revision', 'default_language', 'regional_rules', 'default_mode', 'consent_mode'] as const;

export async function findBanner(db: Executor, accountId: string): Promise<BannerRow | undefined> {
  return db.selectFrom('accounts').select(COLUMNS).where('id', '=', accountId).executeTakeFirst();
}

export async function saveBanner(db: Executor, accountId: string, banner: Record<string, unknown>, regional: RegionalValues = {}): Promise<BannerRow | undefined> {
  return db
    .updateTable('accounts')
    .set({ banner: toJson(banner), ...regional, updated_at: new Date() })
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
