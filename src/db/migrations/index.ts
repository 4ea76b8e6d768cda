import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026_11_22_0001_foundation.ts';
import * as accountResources from './2026_11_22_0002_account_resources.ts';
import * as aiFeatures from './2026_11_22_0005_ai_features.ts';
import * as consentCounters from './2026_11_22_0006_consent_counters.ts';
import * as bannerSettings from './2026_11_23_1301_banner_settings.ts';
import * as accountHttpsOnly from './2026_11_23_1302_account_https_only.ts';
import * as invitationEmailStatus from './2026_11_23_1302_invitation_email_status.ts';
import * as categoryPublished from './2026_11_23_1303_category_published.ts';
import * as scans from './2026_11_23_1304_scans.ts';
import * as proofOfConsent from './2026_11_23_1305_proof_of_consent.ts';
import * as passwordResets from './2026_11_23_1306_password_resets.ts';
import * as aiActionRejected from './2026_11_25_2100_ai_action_rejected.ts';
import * as visitorPeriodSketches from './2026_11_25_2200_visitor_period_sketches.ts';
import * as recentVisitors from './2026_11_25_2201_recent_visitors.ts';
import * as consentSessionHashIndex from './2026_11_25_2300_consent_session_hash_index.ts';
import * as compactConsentRows from './2026_11_26_0001_compact_consent_rows.ts';
import * as consentTimeCounts from './2026_11_26_0002_consent_time_counts.ts';
import * as consentChoices from './2026_11_26_0003_consent_choices.ts';
import * as consentSessionPrefixIndex from './2026_11_27_0001_consent_session_prefix_index.ts';
import * as storageItemWriter from './2026_11_27_0002_storage_item_writer.ts';
import * as consentUserCountIndex from './2026_11_27_0003_consent_user_count_index.ts';
import * as services from './2026_11_28_0001_services.ts';
import * as scanOwners from './2026_11_29_0001_scan_owners.ts';
import * as chooserSketches from './2026_11_29_0101_chooser_sketches.ts';
import * as demoAccounts from './2026_11_29_0102_demo_accounts.ts';
import * as contentTranslations from './2026_11_29_0510_content_translations.ts';
import * as consentChoiceBytes from './2026_12_06_0001_consent_choice_bytes.ts';
import * as consentRegions from './2026_12_06_1001_consent_regions.ts';
import * as regionalRules from './2026_12_06_1201_regional_rules.ts';
import * as categorySaleOrSharing from './2026_12_06_1202_category_sale_or_sharing.ts';
import * as tcfVendorLists from './2026_12_07_4701_tcf_vendor_lists.ts';
import * as consentTcfStrings from './2026_12_07_4702_consent_tcf_strings.ts';
import * as consentIdempotencyKeys from './2026_12_07_482_consent_idempotency_keys.ts';
import * as noticeSnapshots from './2026_12_07_4911_notice_snapshots.ts';
import * as auditLog from './2026_12_07_4912_audit_log.ts';
import * as webhooks from './2026_12_07_4921_webhooks.ts';

/** Every migration, in order. Names sort by their timestamp. */
const migrations: Record<string, Migration> = {
  '2026_11_22_0001_foundation': foundation,
  '2026_11_22_0002_account_resources': accountResources,
  '2026_11_22_0005_ai_features': aiFeatures,
  '2026_11_22_0006_consent_counters': consentCounters,
  '2026_11_23_1301_banner_settings': bannerSettings,
  '2026_11_23_1302_account_https_only': accountHttpsOnly,
  '2026_11_23_1302_invitation_email_status': invitationEmailStatus,
  '2026_11_23_1303_category_published': categoryPublished,
  '2026_11_23_1304_scans': scans,
  '2026_11_23_1305_proof_of_consent': proofOfConsent,
  '2026_11_23_1306_password_resets': passwordResets,
  '2026_11_25_2100_ai_action_rejected': aiActionRejected,
  '2026_11_25_2200_visitor_period_sketches': visitorPeriodSketches,
  '2026_11_25_2201_recent_visitors': recentVisitors,
  '2026_11_25_2300_consent_session_hash_index': consentSessionHashIndex,
  '2026_11_26_0001_compact_consent_rows': compactConsentRows,
  '2026_11_26_0002_consent_time_counts': consentTimeCounts,
  '2026_11_26_0003_consent_choices': consentChoices,
  '2026_11_27_0001_consent_session_prefix_index': consentSessionPrefixIndex,
  '2026_11_27_0002_storage_item_writer': storageItemWriter,
  '2026_11_27_0003_consent_user_count_index': consentUserCountIndex,
  '2026_11_28_0001_services': services,
  '2026_11_29_0001_scan_owners': scanOwners,
  '2026_11_29_0101_chooser_sketches': chooserSketches,
  '2026_11_29_0102_demo_accounts': demoAccounts,
  '2026_11_29_0510_content_translations': contentTranslations,
  '2026_12_06_0001_consent_choice_bytes': consentChoiceBytes,
  '2026_12_06_1001_consent_regions': consentRegions,
  '2026_12_06_1201_regional_rules': regionalRules,
  '2026_12_06_1202_category_sale_or_sharing': categorySaleOrSharing,
  '2026_12_07_4701_tcf_vendor_lists': tcfVendorLists,
  '2026_12_07_4702_consent_tcf_strings': consentTcfStrings,
  '2026_12_07_482_consent_idempotency_keys': consentIdempotencyKeys,
  '2026_12_07_4911_notice_snapshots': noticeSnapshots,
  '2026_12_07_4912_audit_log': auditLog,
  '2026_12_07_4921_webhooks': webhooks,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
