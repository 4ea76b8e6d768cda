import { isForeignKeyViolation } from '../../db/kysely.ts';
import { found, NotFoundError } from '../../http/app-errors.ts';
import type { Services } from '../../services.ts';
import { findVisitorConsent } from '../consent-proof/consent-proof.service.ts';
import { recordConsent, type VisitorContext } from '../consents/consents.service.ts';
import type { WidgetConsentInput } from './widget.schema.ts';
import { findWidgetAccount, type WidgetAccount } from './widget.repository.ts';

/** An account deleted while still cached here: its rows can no longer be written, it is gone. */
const vanished = (error: unknown): never => {
  throw isForeignKeyViolation(error) ? new NotFoundError() : error;
};

/** The banner's configuration; the load counts as a pageview of the session (in memory, written in batches). */
export async function bannerConfig(services: Services, account: WidgetAccount, sessionId: string | undefined) {
  // The account is read again (the cached one may have been deleted since): a read, not a write.
  const [banner, current] = await Promise.all([services.bannerScripts.get(account.id), findWidgetAccount(services.db, account.id)]);
  if (!banner || !current) throw new NotFoundError();
  services.visits.count(account.id, sessionId);
  return banner.config;
}

/** A page the banner was loaded on: a pageview (in memory, written in batches), with no visitor named. */
export function countPageview(services: Services, account: WidgetAccount): void {
  services.visits.count(account.id);
}

/** A visitor's choice from the banner, committed before the answer. */
export async function recordVisitorConsent(services: Services, account: WidgetAccount, input: WidgetConsentInput, visitor: VisitorContext) {
  // The page reports navigator.globalPrivacyControl: browsers may set it without sending Sec-GPC.
  if (input.gpc === true) visitor.gpc = true;
  return recordConsent(services, account.id, input, visitor).catch(vanished);
}

/** A visitor's own consent, for the session that gave it. */
export async function visitorReceipt(services: Services, account: WidgetAccount, id: string, sessionId: string) {
  return found(await findVisitorConsent(services.db, account.id, id, sessionId));
}
