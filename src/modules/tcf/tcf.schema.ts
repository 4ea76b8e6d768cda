/** What other modules use of the TCF settings' shapes: the banner settings embed them. */
export { TcfChangesSchema, TcfSettingsSchema, type TcfChanges, type TcfSettings } from './tcf-settings.ts';

import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';

/** The Global Vendor List in force, as the dashboard shows it and picks vendors from. */
export const VendorListSummary = Type.Object({
  data: Type.Union([Type.Object({
    version: Type.Integer({ description: 'vendorListVersion' }),
    tcf_policy_version: Type.Integer(),
    last_updated: Type.String({ description: "The list's lastUpdated" }),
    fetched_at: Timestamp,
    languages: Type.Array(Type.String(), { description: 'Translations loaded besides English' }),
    vendors: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }), { description: 'Every vendor still in the list, by id' }),
  }), Type.Null()], { description: 'null: no list is loaded (TCF cannot be enabled)' }),
});
