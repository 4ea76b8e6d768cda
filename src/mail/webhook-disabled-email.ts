import type { MailMessage } from './mailer.ts';

export interface WebhookDisabledEmail {
  to: string;
  accountName: string;
  url: string;
  failingSince: Date;
  lastError: string | null;
  dashboardUrl: string;
}

const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();

/** Tells an admin that an endpoint failed for too long and was disabled. */
export function webhookDisabledEmail(mail: WebhookDisabledEmail): MailMessage {
  const account = oneLine(mail.accountName);
  const text = [
    'Hello,',
    '',
    `Every delivery to the webhook ${oneLine(mail.url)} of ${account} has failed since ${mail.failingSince.toISOString()}.`,
    mail.lastError ? `The last attempt: ${oneLine(mail.lastError)}.` : '',
    '',
    'The webhook has been disabled and its waiting deliveries parked. Once the receiver works again,',
    'enable the webhook and send the parked deliveries again from its delivery log:',
    mail.dashboardUrl,
    '',
  ].filter((line, i, lines) => line !== '' || lines[i - 1] !== '').join('\n');
  return { to: mail.to, subject: `A webhook of ${account} was disabled after failing`, text };
}
