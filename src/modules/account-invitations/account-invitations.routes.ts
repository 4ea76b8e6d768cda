import { Type } from 'typebox';
import { found, NotFoundError } from '../../http/app-errors.ts';
import { listAnswer, listOf } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf, scopeOf } from '../../http/auth.ts';
import { ErrorList, IdParams, MessageSchema } from '../../http/schemas.ts';
import { Problems } from '../../http/validation.ts';
import { findInvitation, listInvitations, updateOpenInvitation } from './account-invitations.repository.ts';
import {
  AcceptedInvitationSchema,
  AcceptInvitationBody,
  CreatedInvitationSchema,
  CreateInvitationBody,
  InvitationListItemSchema,
  InvitationListQuery,
  InvitationSchema,
  toCreatedInvitation,
  toInvitation,
  toInvitationListItem,
  UpdateInvitationBody,
} from './account-invitations.schema.ts';
import { inviteToAccount, resendInvitation } from './account-invitations.service.ts';
import { acceptInvitation } from './invitation-accept.ts';
import { startInvitationEmailRetries } from './invitation-mail.ts';

const tags = ['Account invitations'];
const read = { auth: 'account' } as const;
const write = { auth: 'account', admin: true } as const;
const One = Type.Object({ data: InvitationSchema });

export const accountInvitationsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db, config } = services;
  const stopRetries = startInvitationEmailRetries(services, app.log);
  app.addHook('onClose', async () => stopRetries());

  /** The update form of an invitation of the account, after a change. */
  async function current(accountId: string, id: string) {
    const row = found(await findInvitation(db, accountId, id));
    return { data: toInvitation(row, config.publicUrl) };
  }

  app.get('/account-invitations', {
    config: read,
    schema: {
      operationId: 'listAccountInvitations', tags,
      summary: 'Open invitations of the account; with include_cancelled=true, all of them',
      querystring: InvitationListQuery,
      response: { 200: listOf(InvitationListItemSchema) },
    },
  }, async (request) => {
    const filters = { includeCancelled: request.query.include_cancelled === true };
    return listAnswer(request, { sort: 'created_at', order: 'asc' },
      (sort, window) => listInvitations(db, scopeOf(request).accountId, filters, window, sort), (row) => toInvitationListItem(row, config.publicUrl));
  });

  app.get('/account-invitations/:id', {
    config: read,
    schema: {
      operationId: 'getAccountInvitation', tags, summary: 'One invitation of the account, in any state',
      params: IdParams,
      response: { 200: One },
    },
  }, async (request) => current(scopeOf(request).accountId, request.params.id));

  app.post('/account-invitations', {
    config: { ...write, errorForm: 'single' },
    schema: {
      operationId: 'createAccountInvitation', tags,
      summary: 'Invite someone by email (201); an open invitation for the same email is sent again instead (200)',
      body: CreateInvitationBody,
      response: { 201: CreatedInvitationSchema, 200: CreatedInvitationSchema },
    },
  }, async (request, reply) => {
    const { row, created, inviteUrl } = await inviteToAccount(services, request.log, scopeOf(request).accountId, principalOf(request), request.body);
    return reply.code(created ? 201 : 200).send(toCreatedInvitation(row, inviteUrl));
  });

  app.post('/account-invitations/:id/resend', {
    config: write,
    schema: {
      operationId: 'resendAccountInvitation', tags,
      summary: 'Email an open invitation again with a new link (at most once an hour per address; at once after a failed send)',
      params: IdParams,
      response: { 200: CreatedInvitationSchema },
    },
  }, async (request) => {
    const { row, inviteUrl } = await resendInvitation(services, request.log, scopeOf(request).accountId, request.params.id);
    return toCreatedInvitation(row, inviteUrl);
  });

  app.put('/account-invitations/:id', {
    config: write,
    schema: {
      operationId: 'updateAccountInvitation', tags, summary: 'Rename an open invitation (email and role stay)',
      params: IdParams,
      body: UpdateInvitationBody,
      response: { 200: One },
    },
  }, async (request) => {
    const problems = new Problems();
    const name = problems.required('name', request.body.account_invitation.name);
    problems.throwIfAny();
    const { accountId } = scopeOf(request);
    if (!(await updateOpenInvitation(db, accountId, request.params.id, { name }))) throw new NotFoundError();
    return current(accountId, request.params.id);
  });

  app.delete('/account-invitations/:id', {
    config: write,
    schema: {
      operationId: 'cancelAccountInvitation', tags, summary: 'Cancel an open invitation; its link stops working',
      params: IdParams,
      response: { 200: MessageSchema },
    },
  }, async (request) => {
    found(await updateOpenInvitation(db, scopeOf(request).accountId, request.params.id, { deleted_at: new Date() }));
    return { message: 'Account invitation was cancelled' };
  });

  app.post('/account-invitations/accept', {
    config: { auth: 'public', throttle: 'accept' },
    schema: {
      operationId: 'acceptAccountInvitation', tags,
      summary: 'Accept an invitation with the secret of its link: joins the account (creating the user if new) and logs in',
      body: AcceptInvitationBody,
      response: { 200: AcceptedInvitationSchema, 404: ErrorList },
    },
  }, async (request) => {
    const accepted = await acceptInvitation(db, request.body.invitation);
    // A user's cached memberships would not show the new one: with one account, a token names none.
    await services.forgetMemberships([accepted.data.user.id]);
    return accepted;
  });
};
