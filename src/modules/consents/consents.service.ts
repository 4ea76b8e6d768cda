import type { FastifyRequest } from 'fastify';
import { isId, newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import type { UserPreferences } from '../../db/schema.ts';
import { Problems } from '../../http/validate.ts';
import { markCodeInstalled, recordVisit } from '../accounts/onboarding-facts.ts';
import { categoriesOf, insertConsent, type NewConsent } from './consents.repository.ts';
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
async function checkPreferences(db: Executor, accountId: string, input: ConsentInput['user_preferences']): Promise<UserPreferences> {
  const accepted = unique(input.accepted_categories);
  const rejected = unique(input.rejected_categories);
  const problems = new Problems();
  const wanted = [...accepted, ...rejected];
  const known = new Map((await categoriesOf(db, accountId, wanted.filter(isId))).map((row) => [row.id, row]));
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

const installed = new Set<string>();

/**
 * Validates and stores one consent; it is committed when this resolves. Then counts the visit
 * toward the onboarding status.
 */
export async function recordConsent(db: Executor, accountId: string, input: ConsentInput, visitor: VisitorContext): Promise<NewConsent> {
  const consent: NewConsent = {
    id: newId(),
    account_id: accountId,
    session_id: input.session_id,
    user_id: input.user_id ?? null,
    user_preferences: await checkPreferences(db, accountId, input.user_preferences),
    url: input.url ?? null,
    user_agent: visitor.userAgent,
    ip_address: maskIp(visitor.ip),
    gpc: visitor.gpc,
    created_at: new Date(),
  };
  await insertConsent(db, consent);
  if (!installed.has(accountId)) {
    await markCodeInstalled(db, accountId);
    installed.add(accountId);
  }
  await recordVisit(db, accountId, consent.session_id);
  return consent;
}
