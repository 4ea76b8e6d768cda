import type { FastifyRequest } from 'fastify';
import { newId } from '../../db/ids.ts';
import type { UserPreferences } from '../../db/schema.ts';
import { Problems } from '../../http/validate.ts';
import type { CategoryCache } from '../categories/category-cache.ts';
import type { ConsentWriter } from './consent-writer.ts';
import type { NewConsent } from './consents.repository.ts';
import type { ConsentInput } from './consents.schema.ts';
import { maskIp } from './ip-mask.ts';

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

const unique = (ids: string[] | undefined) => [...new Set(ids ?? [])];

/** Checks the categories against the account: they exist, do not overlap, and required ones stay accepted. */
async function checkPreferences(categories: CategoryCache, accountId: string, input: ConsentInput['user_preferences']): Promise<UserPreferences> {
  const accepted = unique(input.accepted_categories);
  const rejected = unique(input.rejected_categories);
  const problems = new Problems();
  const known = await categories.of(accountId, [...accepted, ...rejected]);
  if (accepted.some((id) => !known.has(id))) problems.add('accepted_categories', 'must exist');
  if (rejected.some((id) => !known.has(id))) problems.add('rejected_categories', 'must exist');
  if (rejected.some((id) => accepted.includes(id))) problems.add('rejected_categories', 'cannot include an accepted category');
  if (rejected.some((id) => known.get(id)?.required)) problems.add('rejected_categories', 'cannot include a required category');
  problems.throwIfAny();
  return {
    accept_type: input.accept_type,
    accepted_categories: accepted,
    rejected_categories: rejected,
    accepted_services: input.accepted_services ?? {},
    rejected_services: input.rejected_services ?? {},
  };
}

export interface ConsentRecorder {
  categories: CategoryCache;
  consentWriter: ConsentWriter;
}

/**
 * Validates and stores one consent, with the visit it counts; it is committed when this resolves.
 */
export async function recordConsent(
  { categories, consentWriter }: ConsentRecorder,
  accountId: string,
  input: ConsentInput,
  visitor: VisitorContext,
): Promise<NewConsent> {
  const consent: NewConsent = {
    id: newId(),
    account_id: accountId,
    session_id: input.session_id,
    user_id: input.user_id ?? null,
    user_preferences: await checkPreferences(categories, accountId, input.user_preferences),
    url: input.url ?? null,
    user_agent: visitor.userAgent,
    ip_address: maskIp(visitor.ip),
    gpc: visitor.gpc,
    created_at: new Date(),
  };
  await consentWriter.write(consent);
  return consent;
}
