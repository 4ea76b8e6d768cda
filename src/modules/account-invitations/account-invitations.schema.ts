import { Type, type Static } from 'typebox';
import type { AccountInvitationRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Name, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { AccountUserSchema, RolesSchema } from '../account-users/account-users.schema.ts';
import { MAX_PASSWORD_LENGTH } from '../users/users.schema.ts';
import type { InvitationView } from './account-invitations.repository.ts';
import { invitationState, maskedInviteUrl, INVITATION_STATES } from './invitation-secret.ts';

const Email = Type.String({ format: 'email', maxLength: 254 });
const Role = StringEnum(['admin', 'member'] as const, { description: 'The role the invitee gets on acceptance' });
const EmailStatus = Nullable(StringEnum(['sent', 'failed', 'not_configured'] as const, {
  description: 'What became of the invitation email: sent, failed (retried with backoff; the inviter can resend), '
    + 'or not_configured (no SMTP: the link was returned to the admin who made the invitation). Null for invitations older than this field.',
}));
const Person = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String({ format: 'email' }) });

/** The seed's "response of the update operation": what GET and PUT answer under `data`. */
const invitationFields = {
  id: Type.String(),
  name: Type.String(),
  email: Type.String({ format: 'email' }),
  invite_url: Type.String({
    description: 'The link to accept. Only the SHA-256 of its secret is stored, so the secret is masked here; '
      + 'the working link is in the email. Creating the invitation again sends a new one.',
  }),
  roles: RolesSchema,
  created_at: Timestamp,
  updated_at: Timestamp,
  invited_by: Nullable(Person),
  email_status: EmailStatus,
};
export const InvitationSchema = Type.Object(invitationFields);
export type Invitation = Static<typeof InvitationSchema>;

/** List items say which state each invitation is in, so that `include_cancelled` can be read. */
export const InvitationListItemSchema = Type.Object({
  ...invitationFields,
  status: StringEnum(INVITATION_STATES),
  expires_at: Timestamp,
});
export type InvitationListItem = Static<typeof InvitationListItemSchema>;

/** The seed's "response of the create operation", unwrapped. */
export const CreatedInvitationSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String({ format: 'email' }),
  role: Role,
  invited_by_type: StringEnum(['account_user', 'API'] as const),
  invited_by_id: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Nullable(Timestamp),
  email_status: EmailStatus,
  invite_url: Type.Optional(Type.String({
    description: 'Only when the server has no SMTP: the working link, for the admin who made the invitation to pass on. It is never logged nor shown again.',
  })),
});
export type CreatedInvitation = Static<typeof CreatedInvitationSchema>;

export const CreateInvitationBody = Type.Object({ name: Name(), email: Email, role: Role });
export type CreateInvitationInput = Static<typeof CreateInvitationBody>;

export const UpdateInvitationBody = Type.Object({ account_invitation: Type.Object({ name: Name() }) });

export const InvitationListQuery = offsetQuery(['created_at'] as const, {
  include_cancelled: Type.Optional(Type.Boolean({ description: 'Also list cancelled and accepted invitations' })),
});

export const AcceptInvitationBody = Type.Object({
  invitation: Type.Object({
    token: Type.String({ minLength: 1, maxLength: 128, description: 'The secret at the end of the invite URL' }),
    name: Type.Optional(Name()),
    password: Type.String({ maxLength: MAX_PASSWORD_LENGTH }),
  }),
});
export const AcceptedInvitationSchema = Type.Object({ data: AccountUserSchema, token: Type.String() });

export function toInvitation(row: InvitationView, publicUrl: string): Invitation {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    invite_url: maskedInviteUrl(publicUrl),
    roles: { admin: row.role === 'admin' },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    invited_by: row.invited_by_id && row.inviter_name !== null && row.inviter_email !== null
      ? { id: row.invited_by_id, name: row.inviter_name, email: row.inviter_email }
      : null,
    email_status: row.email_status,
  };
}

export function toInvitationListItem(row: InvitationView, publicUrl: string): InvitationListItem {
  return { ...toInvitation(row, publicUrl), status: invitationState(row), expires_at: row.expires_at.toISOString() };
}

export function toCreatedInvitation(row: AccountInvitationRow, inviteUrl: string | null = null): CreatedInvitation {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    invited_by_type: row.invited_by_type,
    invited_by_id: row.invited_by_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    deleted_at: row.deleted_at ? row.deleted_at.toISOString() : null,
    email_status: row.email_status,
    ...(inviteUrl ? { invite_url: inviteUrl } : {}),
  };
}
