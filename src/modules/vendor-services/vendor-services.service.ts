import type { Kysely } from 'kysely';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { isForeignKeyViolation, isUniqueViolation, type Executor } from '../../db/kysely.ts';
import type { Database, ServiceRow } from '../../db/schema.ts';
import { found, NotFoundError, ValidationError } from '../../http/app-errors.ts';
import { Problems } from '../../http/validation.ts';
import { isWebUrl } from '../../lib/web-url.ts';
import { markVendorsSetup } from '../accounts/accounts.service.ts';
import { checkCategory, checkTranslations, settleSlug, storedTranslations, trimTexts } from '../categories/categories.service.ts';
import { deleteService, findService, insertService, serviceSlugTaken, updateService, type ServiceValues } from './vendor-services.repository.ts';
import type { ServiceFields } from './vendor-services.schema.ts';

export { findService } from './vendor-services.repository.ts';

/**
 * Trims the texts, settles the slug as a category's is (the one sent, or the name's), checks
 * that the category is the account's and the privacy policy a web address (an empty one is none),
 * and merges the texts in other languages with those stored.
 */
async function cleanFields(db: Executor, accountId: string, fields: ServiceFields, current?: ServiceRow): Promise<ServiceValues> {
  const problems = new Problems();
  const { translations, ...rest } = fields;
  const out: ServiceValues = { ...rest, ...trimTexts(problems, fields, ['name', 'description', 'company_name']) };
  const slug = await settleSlug(problems, { name: out.name, slug: fields.slug }, current, (wanted, exceptId) => serviceSlugTaken(db, accountId, wanted, exceptId));
  if (slug !== undefined) out.slug = slug;
  await checkCategory(db, problems, accountId, fields.category_id);
  if (typeof fields.privacy_policy_url === 'string') {
    const url = fields.privacy_policy_url.trim();
    if (url !== '' && !isWebUrl(url)) problems.add('privacy_policy_url', 'is invalid');
    out.privacy_policy_url = url === '' ? null : url;
  }
  checkTranslations(problems, translations);
  problems.throwIfAny();
  if (translations !== undefined) out.translations = storedTranslations(current?.translations, translations);
  return out;
}

/** A slug taken, or a category deleted, between the checks and the write: 422 as the checks say. */
const rethrowRefused = (error: unknown): never => {
  if (isUniqueViolation(error)) throw new ValidationError('Slug has already been taken');
  if (isForeignKeyViolation(error)) throw new ValidationError('Category must exist');
  throw error;
};

/** A new service; the account's vendors are now set up (its onboarding status moves on). */
export async function createService(db: Kysely<Database>, accountId: string, sent: ServiceFields): Promise<ServiceRow> {
  const fields = await cleanFields(db, accountId, sent);
  return db
    .transaction()
    .execute(async (trx) => {
      const created = await insertService(trx, accountId, { ...fields, name: fields.name!, slug: fields.slug! });
      await recordAudit(trx, { accountId, resourceType: 'service', resourceId: created.id, action: 'create', after: created });
      await markVendorsSetup(trx, accountId);
      return created;
    })
    .catch(rethrowRefused);
}

/** Only the fields sent change. */
export async function changeService(db: Kysely<Database>, accountId: string, id: string, sent: ServiceFields): Promise<ServiceRow> {
  const current = found(await findService(db, accountId, id));
  const fields = await cleanFields(db, accountId, sent, current);
  return found(await db.transaction().execute(async (trx) => {
    const changed = await updateService(trx, accountId, current.id, fields);
    if (changed) await recordAudit(trx, { accountId, resourceType: 'service', resourceId: id, action: 'update', before: current, after: changed });
    return changed;
  }).catch(rethrowRefused));
}

export async function removeService(db: Kysely<Database>, accountId: string, id: string): Promise<void> {
  const current = found(await findService(db, accountId, id));
  const gone = await db.transaction().execute(async (trx) => {
    const deleted = await deleteService(trx, accountId, id);
    if (deleted) await recordAudit(trx, { accountId, resourceType: 'service', resourceId: id, action: 'delete', before: current });
    return deleted;
  });
  if (!gone) throw new NotFoundError();
}
