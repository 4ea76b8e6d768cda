import { sql, type RawBuilder } from 'kysely';

export const ONBOARDING_STATUSES = ['account_created', 'vendors_setup', 'code_installed', 'inactive', 'live'] as const;
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number];

/** Visitors (distinct session ids) in the last 30 days that make an installed account live. */
export const LIVE_VISITORS = 10;

/**
 * The onboarding status, derived in SQL from facts so that it can be listed and filtered:
 * installed accounts are `live` with enough recent visitors; below that they are `code_installed`
 * during their first 30 days and `inactive` after.
 */
export function onboardingStatus(alias = 'accounts'): RawBuilder<OnboardingStatus> {
  const a = sql.table(alias);
  return sql<OnboardingStatus>`case
    when ${a}.code_installed_at is null then
      case when ${a}.vendors_setup_at is null then 'account_created' else 'vendors_setup' end
    when (select count(*) from account_recent_visitors v
            where v.account_id = ${a}.id and v.last_seen_at > now() - interval '30 days') >= ${sql.lit(LIVE_VISITORS)} then 'live'
    when ${a}.code_installed_at > now() - interval '30 days' then 'code_installed'
    else 'inactive'
  end`;
}
