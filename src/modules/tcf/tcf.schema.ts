/** What other modules use of the TCF settings' shapes: the banner settings embed them. */
export { TcfChangesSchema, TcfSettingsSchema, type TcfChanges, type TcfSettings } from './tcf-settings.ts';
