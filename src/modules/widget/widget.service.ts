import { isForeignKeyViolation, type Executor } from '../../db/kysely.ts';
import type { ConsentRow } from '../../db/schema.ts';
import type { LocateInput, Locator } from '../../geo/locate.ts';
import { modeFor } from '../../geo/regional-rules.ts';
import { canonicalLocation } from '../../geo/regions.ts';
import { found, NotFoundError } from '../../http/app-errors.ts';
import { findVisitorConsent } from '../consent-proof/consent-proof.service.ts';
import { recordConsent, type ConsentRecorder, type VisitorContext } from '../consents/consents.service.ts';
import type { BannerScripts } from './banner-script.ts';
import type { VisitorRegion, WidgetConsentInput } from './widget.schema.ts';
import { findWidgetAccount, type WidgetAccount } from './widget.repository.ts';

/** An account deleted while still cached here: its rows can no longer be written, it is gone. */
const vanished = (error: unknown): never => {
  throw isForeignKeyViolation(error) ? new NotFoundError() : error;
};

/** Where a page the banner is loaded on is counted (stats/visit-counter.ts: in memory, written in batches). */
export interface PageviewCounter {
  count(accountId: string, sessionId?: string): void;
}

/** What serving the banner's configuration needs: the built banners, the database, the pageview counter. */
export interface BannerServing {
  db: Executor;
  bannerScripts: Pick<BannerScripts, 'get'>;
  visits: PageviewCounter;
}

/** The banner's configuration; the load counts as a pageview of the session (in memory, written in batches). */
export async function bannerConfig(serving: BannerServing, account: WidgetAccount, sessionId: string | undefined) {
  // The account is read again (the cached one may have been deleted since): a read, not a write.
  const [banner, current] = await Promise.all([serving.bannerScripts.get(account.id), findWidgetAccount(serving.db, account.id)]);
  if (!banner || !current) throw new NotFoundError();
  serving.visits.count(account.id, sessionId);
  return banner.config;
}

/** What telling a visitor's region needs: where visitors are, and the built banners, whose rules decide the mode. */
export interface RegionServing {
  locator: Locator;
  bannerScripts: Pick<BannerScripts, 'get'>;
}

/**
 * Where the visitor is and the banner mode the account's rules give there: the rules the account's
 * script carries (built at most a minute ago), so that the answer and the script's own choice for
 * a page's `data-region` agree. The place is the one the page `told` when it names a country (no
 * lookup then), else the visitor's as the locator finds it; the address is used for the lookup alone.
 */
export async function visitorRegion(
  serving: RegionServing, account: WidgetAccount, visitor: LocateInput, told?: { country?: string | null; region?: string | null },
): Promise<VisitorRegion> {
  const place = told?.country != null ? canonicalLocation(told.country, told.region) : serving.locator.locate(visitor);
  const [location, banner] = await Promise.all([place, serving.bannerScripts.get(account.id)]);
  if (!banner) throw new NotFoundError();
  const { rules, default_mode } = banner.config.regions;
  return { country: location.country, region: location.region, mode: modeFor(location, rules, default_mode) };
}

/** A page the banner was loaded on: a pageview (in memory, written in batches), with no visitor named. */
export function countPageview(visits: PageviewCounter, account: WidgetAccount, sessionId?: string): void {
  visits.count(account.id, sessionId);
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
  // A region sent alone is still the banner's word (refused: it needs its country), not replaced.
  const sentPlace = input.country != null || input.region != null;
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
  recorder: ConsentRecorder, account: WidgetAccount, input: WidgetConsentInput, visitor: VisitorContext, locate?: LocateVisitor, idempotencyKey?: string,
): Promise<{ id: string; created_at: Date }> {
  // The page reports navigator.globalPrivacyControl: browsers may set it without sending Sec-GPC.
  if (input.gpc === true) visitor.gpc = true;
  const recorded = await recordConsent(recorder, account.id, await placeOfConsent(input, locate), visitor, idempotencyKey).catch(vanished);
  return recorded.earlier ?? recorded.consent;
}

/** A visitor's own consent, for the session that gave it. */
export async function visitorReceipt(db: Executor, account: WidgetAccount, id: string, sessionId: string) {
  return found(await findVisitorConsent(db, account.id, id, sessionId));
}
