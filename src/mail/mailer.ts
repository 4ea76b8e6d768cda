import type { FastifyBaseLogger } from 'fastify';
import { createTransport } from 'nodemailer';
import type { Config } from '../config.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends the service's emails: over SMTP when `SMTP_URL` is set, else into the log. */
export interface Mailer {
  readonly via: 'smtp' | 'log';
  /** Rejects when the SMTP server refuses or cannot be reached; callers decide what that means. */
  send(message: MailMessage, log: FastifyBaseLogger): Promise<void>;
  close(): void;
}

/** Short waits: a request that sends mail must not hang on an unreachable server. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * The sender: `SMTP_URL` may name it with `?from=` (e.g. `smtp://host:587?from=team@example.com`);
 * otherwise no-reply at the host of `PUBLIC_URL`.
 */
export function senderOf(config: Pick<Config, 'smtpUrl' | 'publicUrl'>): string {
  const from = config.smtpUrl ? new URL(config.smtpUrl).searchParams.get('from') : null;
  return from || `Consentry <no-reply@${new URL(config.publicUrl).hostname}>`;
}

function smtpMailer(url: string, from: string): Mailer {
  const transport = createTransport({ url, ...TIMEOUTS }, { from });
  return {
    via: 'smtp',
    async send(message) {
      await transport.sendMail(message);
    },
    close() {
      transport.close();
    },
  };
}

/**
 * Without SMTP an email is not sent and only its envelope is logged: its text may carry a secret
 * link, and logs are read by more people, and kept longer, than a mailbox. (Invitations do not come
 * here at all: their link goes back to the admin who made them.)
 */
function logMailer(from: string): Mailer {
  return {
    via: 'log',
    async send(message, log) {
      log.info({ mail: { from, to: message.to, subject: message.subject } }, 'SMTP_URL is not set: email not sent (its text is not logged)');
    },
    close() {},
  };
}

export function createMailer(config: Config): Mailer {
  const from = senderOf(config);
  return config.smtpUrl ? smtpMailer(config.smtpUrl, from) : logMailer(from);
}
