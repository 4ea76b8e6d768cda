import { isForeignKeyViolation } from '../../db/kysely.ts';
import type { ConsentRow } from '../../db/schema.ts';
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

/** Where a visitor is, and the mode the account's regional rules give that place. */
export type VisitorPlace = Pick<ConsentRow, 'country' | 'region' | 'mode'>;

/** Finds the visitor's place for a request (the client's address or the CDN's headers, the account's rules). */
export type LocateVisitor = () => VisitorPlace | Promise<VisitorPlace>;

/**
 * The country, region and mode a banner's consent is recorded with. What the banner sent stands
 * (a page that knows its visitor's region says so); when it sent no country, the country and region
 * are the visitor's place as `locate` finds it, and when it sent no mode, the mode is that place's.
 * `locate` is asked only then, and not at all when none is given.
 */
export async function placeOfConsent(input: WidgetConsentInput, locate?: LocateVisitor): Promise<WidgetConsentInput> {
  const sentPlace = input.country != null;
  const sentMode = input.mode != null;
  if ((sentPlace && sentMode) || !locate) return input;
  const place = await locate();
  return {
    ...input,
    country: sentPlace ? input.country : place.country,
    region: sentPlace ? input.region : place.region,
    mode: sentMode ? input.mode : place.mode,
  };
}

/** A visitor's choice from the banner, committed before the answer; `locate` fills what the banner did not say of its place. */
export async function recordVisitorConsent(
  services: Services, account: WidgetAccount, input: WidgetConsentInput, visitor: VisitorContext, locate?: LocateVisitor,
) {
  // The page reports navigator.globalPrivacyControl: browsers may set it without sending Sec-GPC.
  if (input.gpc === true) visitor.gpc = true;
  return recordConsent(services, account.id, await placeOfConsent(input, locate), visitor).catch(vanished);
}

/** A visitor's own consent, for the session that gave it. */
export async function visitorReceipt(services: Services, account: WidgetAccount, id: string, sessionId: string) {
  return found(await findVisitorConsent(services.db, account.id, id, sessionId));
}
