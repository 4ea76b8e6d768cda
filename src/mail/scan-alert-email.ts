import type { MailMessage } from './mailer.ts';

/** An item as the alert names it. */
export interface AlertItem {
  name: string;
  domain: string;
  storage_type: string;
}

export interface ScanAlertEmail {
  to: string;
  accountName: string;
  startingUrl: string;
  newItems: AlertItem[];
  goneItems: AlertItem[];
  beforeConsent: AlertItem[];
  reportUrl: string;
}

const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();
/** At most this many items of each list are named; the report has them all. */
const SHOWN = 20;

function section(title: string, items: AlertItem[]): string[] {
  if (items.length === 0) return [];
  const lines = items.slice(0, SHOWN).map((item) => `- ${oneLine(item.name)} (${item.storage_type}, ${oneLine(item.domain) || 'no domain'})`);
  if (items.length > SHOWN) lines.push(`- and ${items.length - SHOWN} more`);
  return [`${title} (${items.length}):`, ...lines, ''];
}

/** What a scheduled scan found changed since the previous scan, and what is set before consent. */
export function scanAlertEmail(mail: ScanAlertEmail): MailMessage {
  const account = oneLine(mail.accountName);
  const text = [
    'Hello,',
    '',
    `The scheduled scan of ${oneLine(mail.startingUrl)} for ${account} found changes since the previous scan.`,
    '',
    ...section('New storage items', mail.newItems),
    ...section('Storage items no longer found', mail.goneItems),
    ...section('Set before the visitor consented, and not in a required category', mail.beforeConsent),
    'The whole report:',
    mail.reportUrl,
    '',
  ].join('\n');
  return { to: mail.to, subject: `Scan of ${account}: ${mail.newItems.length} new, ${mail.goneItems.length} gone, ${mail.beforeConsent.length} before consent`, text };
}
