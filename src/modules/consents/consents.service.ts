import type { FastifyRequest } from 'fastify';
import type { NoticeHashes } from '../notices/notices.service.ts';
import { newId } from '../../db/ids.ts';
import type { UserPreferences } from '../../db/schema.ts';
import { Problems } from '../../http/validation.ts';
import type { CategoryCache } from '../categories/categories.service.ts';
import type { ConsentWriter } from './consent-writer.ts';
import type { NewConsent } from './consents.repository.ts';
import { SERVICES_LIMIT, type ConsentInput } from './consents.schema.ts';
import { isWebUrl } from '../../lib/web-url.ts';
import { maskIp } from './ip-mask.ts';
import { decodesAsGpp } from './gpp-string.ts';
import { isCountryCode } from '../../geo/country-codes.ts';

/** What the request itself says about the visitor, beyond the body. */
export interface VisitorContext {
  ip: string | undefined;
  userAgent: string | null;
  gpc: boolean;
}

export function visitorContext(request: FastifyRequest): VisitorContext {
  const userAgent = request.headers['user-agent'];
  return {
    ip: request.ip,
    userAgent: userAgent ? userAgent.slice(0, 512) : null,
    gpc: request.headers['sec-gpc'] === '1',
  };
}

/** Whether the service maps together stay within `SERVICES_LIMIT`. */
function withinServicesLimit(...maps: (Record<string, string[]> | undefined)[]): boolean {
  let names = 0;
  let characters = 0;
  for (const map of maps) {
    for (const [key, list] of Object.entries(map ?? {})) {
      names += list.length;
      characters += key.length;
      for (const name of list) characters += name.length;
    }
  }
  return names <= SERVICES_LIMIT.names && characters <= SERVICES_LIMIT.characters;
}

/** Ids once each, in lower case: ids in capitals name the same categories, as everywhere in the API. */
const unique = (ids: string[] | undefined) => [...new Set((ids ?? []).map((id) => id.toLowerCase()))];


/**
 * Checks the categories against the account: they exist, do not overlap, required ones stay
 * accepted, and the lists agree with `accept_type` (`necessary` accepts only required categories;
 * `all` rejects none). An `all` consent stores every published category of the account (those the
 * banner shows) as accepted, a `necessary` one the published required ones as accepted and the
 * others as rejected, so the record itself proves what the visitor agreed to and refused (and the
 * statistics count a "necessary only" as a refusal of each optional category). Those lists are
 * sorted, so that one choice is stored once whatever order the categories were read in.
 */
/**
 * Checks what the schema cannot: the country is one (an assigned code, or Kosovo's XK), a region
 * lies in it, and a GPP string decodes with the IAB's library. Adds its problems to `problems` without throwing them.
 */
async function checkRegional(input: ConsentInput, problems: Problems): Promise<void> {
  const { country, region, gpp_string: gpp } = input;
  if (country != null && !isCountryCode(country)) problems.add('country', 'is not an ISO 3166-1 country code');
  if (region != null && country == null) problems.add('region', 'needs the country it lies in');
  else if (region != null && country != null && !region.startsWith(`${country}-`)) problems.add('region', `must lie in the country (${country}-…)`);
  if (gpp != null && !(await decodesAsGpp(gpp))) problems.add('gpp_string', 'is not a GPP string the IAB library can decode');
}

async function checkPreferences(categories: CategoryCache, accountId: string, input: ConsentInput, problems: Problems): Promise<UserPreferences> {
  const preferences = input.user_preferences;
  let accepted = unique(preferences.accepted_categories);
  let rejected = unique(preferences.rejected_categories);
  const known = await categories.of(accountId, [...accepted, ...rejected]);
  if (accepted.some((id) => !known.has(id))) problems.add('accepted_categories', 'must exist');
  if (rejected.some((id) => !known.has(id))) problems.add('rejected_categories', 'must exist');
  if (rejected.some((id) => accepted.includes(id))) problems.add('rejected_categories', 'cannot include an accepted category');
  if (rejected.some((id) => known.get(id)?.required)) problems.add('rejected_categories', 'cannot include a required category');
  if (preferences.accept_type === 'necessary' && accepted.some((id) => known.has(id) && !known.get(id)!.required)) {
    problems.add('accepted_categories', 'can only include required categories when accept_type is necessary');
  }
  if (preferences.accept_type === 'all' && rejected.length > 0) problems.add('rejected_categories', 'must be empty when accept_type is all');
  if (preferences.accept_type !== 'custom') {
    const all = preferences.accept_type === 'all';
    for (const category of known.values()) {
      if (category.published) (all || category.required ? accepted : rejected).push(category.id);
    }
    accepted = unique(accepted).sort();
    rejected = unique(rejected).sort();
  }
  if (!withinServicesLimit(preferences.accepted_services, preferences.rejected_services)) {
    problems.add('accepted_services', `and rejected services are too large together (maximum is ${SERVICES_LIMIT.names} names and ${SERVICES_LIMIT.characters} characters of keys and names in all)`);
  }
  if (input.url != null && !isWebUrl(input.url)) problems.add('url', 'must be an http or https URL');
  problems.throwIfAny();
  return {
    accept_type: preferences.accept_type,
    accepted_categories: accepted,
    rejected_categories: rejected,
    accepted_services: preferences.accepted_services ?? {},
    rejected_services: preferences.rejected_services ?? {},
  };
}

export interface ConsentRecorder {
  categories: CategoryCache;
  consentWriter: ConsentWriter;
  /** Which notice snapshots the account holds: a consent may name only one of them. */
  notices: Pick<NoticeHashes, 'has'>;
}

/**
 * Validates and stores one consent, with the visit it counts; it is committed when this resolves.
 */
export async function recordConsent(
  { categories, consentWriter, notices }: ConsentRecorder,
  accountId: string,
  input: ConsentInput,
  visitor: VisitorContext,
): Promise<NewConsent> {
  const problems = new Problems();
  await checkRegional(input, problems);
  // A notice the account never served is refused, not replaced: the record says what was shown or nothing.
  if (input.notice_hash != null && !(await notices.has(accountId, input.notice_hash))) problems.add('notice_hash', 'must exist');
  const consent: NewConsent = {
    id: newId(),
    account_id: accountId,
    session_id: input.session_id,
    user_id: input.user_id ?? null,
    user_preferences: await checkPreferences(categories, accountId, input, problems),
    url: input.url ?? null,
    user_agent: visitor.userAgent,
    ip_address: maskIp(visitor.ip),
    gpc: visitor.gpc,
    created_at: new Date(),
    country: input.country ?? null,
    region: input.region ?? null,
    mode: input.mode ?? null,
    gpp_string: input.gpp_string ?? null,
    notice_hash: input.notice_hash ?? null,
  };
  await consentWriter.write(consent);
  return consent;
}

// What the proof of consent (consent-proof/) reads of the chain and the stored rows.
export { GENESIS, linkHash, personalHash } from './consent-chain.ts';
export { filtered, ofSession } from './consent-filters.ts';
export { findConsentsByIds, fromStored, hex } from './consents.repository.ts';
