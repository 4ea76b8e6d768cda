import type { MailMessage } from './mailer.ts';

export interface PasswordResetEmail {
  to: string;
  userName: string;
  resetUrl: string;
  expiresAt: Date;
}

/** The password reset email, plain text: the link is all the reader needs. */
export function passwordResetEmail(reset: PasswordResetEmail): MailMessage {
  const text = [
    `Hello ${reset.userName.replace(/[\r\n]+/g, ' ').trim()},`,
    '',
    'Someone asked to reset the password of your Consentry login. Choose a new password here:',
    reset.resetUrl,
    '',
    `The link is valid until ${reset.expiresAt.toISOString()} and can be used once.`,
    'If you did not ask for this, ignore this email: your password stays as it is.',
    '',
  ].join('\n');
  return { to: reset.to, subject: 'Reset your Consentry password', text };
}
