import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026_11_22_0001_foundation.ts';
import * as accountResources from './2026_11_22_0002_account_resources.ts';
import * as aiFeatures from './2026_11_22_0005_ai_features.ts';
import * as consentCounters from './2026_11_22_0006_consent_counters.ts';
import * as proofOfConsent from './2026_11_23_1305_proof_of_consent.ts';

/** Every migration, in order. Names sort by their timestamp. */
const migrations: Record<string, Migration> = {
  '2026_11_22_0001_foundation': foundation,
  '2026_11_22_0002_account_resources': accountResources,
  '2026_11_22_0005_ai_features': aiFeatures,
  '2026_11_22_0006_consent_counters': consentCounters,
  '2026_11_23_1305_proof_of_consent': proofOfConsent,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
