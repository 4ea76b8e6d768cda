import type { InvitationRole } from '../db/schema.ts';
import type { MailMessage } from './mailer.ts';

export interface InvitationEmail {
  to: string;
  inviteeName: string;
  accountName: string;
  role: InvitationRole;
  /** Null when the invitation was made with an account token (through the API). */
  inviter: { name: string; email: string } | null;
  inviteUrl: string;
  expiresAt: Date;
}

/** Header values are one line: a name with a line break must not add headers or split the subject. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();

/** The invitation email, plain text: the link is the only thing the invitee needs. */
export function invitationEmail(invitation: InvitationEmail): MailMessage {
  const account = oneLine(invitation.accountName);
  const who = invitation.inviter
    ? `${oneLine(invitation.inviter.name)} (${invitation.inviter.email}) has invited you`
    : 'You have been invited';
  const role = invitation.role === 'admin' ? 'an admin' : 'a member';
  const text = [
    `Hello ${oneLine(invitation.inviteeName)},`,
    '',
    `${who} to join ${account} on Consentry as ${role}.`,
    '',
    'Accept the invitation here:',
    invitation.inviteUrl,
    '',
    `The link is valid until ${invitation.expiresAt.toISOString()} and can be used once.`,
    'If you did not expect this invitation, you can ignore this email.',
    '',
  ].join('\n');
  return { to: invitation.to, subject: `You are invited to join ${account} on Consentry`, text };
}
