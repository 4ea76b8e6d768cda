import { Type } from 'typebox';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { found, NotFoundError } from '../../http/app-errors.ts';
import { listAnswer, OLDEST_FIRST } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf, scopeOf } from '../../http/auth.ts';
import { ErrorList } from '../../http/schemas.ts';
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
const One = Type.Object({ data: InvitationSchema });

export const accountInvitationsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db, config } = services;
  const invitations = resourceRoutes(app, { path: '/account-invitations', tags, access: ACCOUNT_ACCESS });
  const stopRetries = startInvitationEmailRetries(services, app.log);
  app.addHook('onClose', async () => stopRetries());

  /** The update form of an invitation of the account, after a change. */
  async function current(accountId: string, id: string) {
    const row = found(await findInvitation(db, accountId, id));
    return { data: toInvitation(row, config.publicUrl) };
  }

  invitations.list({
    operationId: 'listAccountInvitations',
    summary: 'Open invitations of the account; with include_cancelled=true, all of them',
    querystring: InvitationListQuery, item: InvitationListItemSchema,
  }, (request) => {
    const filters = { includeCancelled: request.query.include_cancelled === true };
    return listAnswer(request, OLDEST_FIRST,
      (sort, window) => listInvitations(db, scopeOf(request).accountId, filters, window, sort), (row) => toInvitationListItem(row, config.publicUrl));
  });

  invitations.one({ operationId: 'getAccountInvitation', summary: 'One invitation of the account, in any state', answer: One },
    (request) => current(scopeOf(request).accountId, request.params.id));

  app.post('/account-invitations', {
    config: { ...ACCOUNT_ACCESS.write, errorForm: 'single' },
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

  invitations.act('resend', {
    operationId: 'resendAccountInvitation',
    summary: 'Email an open invitation again with a new link (at most once an hour per address; at once after a failed send)',
    answer: CreatedInvitationSchema,
  }, async (request) => {
    const { row, inviteUrl } = await resendInvitation(services, request.log, scopeOf(request).accountId, request.params.id);
    return toCreatedInvitation(row, inviteUrl);
  });

  invitations.change({
    operationId: 'updateAccountInvitation', summary: 'Rename an open invitation (email and role stay)',
    body: UpdateInvitationBody, answer: One,
  }, async (request) => {
    const problems = new Problems();
    const name = problems.required('name', request.body.account_invitation.name);
    problems.throwIfAny();
    const { accountId } = scopeOf(request);
    const before = await findInvitation(db, accountId, request.params.id);
    await db.transaction().execute(async (trx) => {
      if (!before || !(await updateOpenInvitation(trx, accountId, request.params.id, { name }))) throw new NotFoundError();
      await recordAudit(trx, { accountId, resourceType: 'account_invitation', resourceId: request.params.id, action: 'update', before: { name: before.name }, after: { name } });
    });
    return current(accountId, request.params.id);
  });

  invitations.remove({
    operationId: 'cancelAccountInvitation', summary: 'Cancel an open invitation; its link stops working',
    message: 'Account invitation was cancelled',
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const before = await findInvitation(db, accountId, request.params.id);
    await db.transaction().execute(async (trx) => {
      found(await updateOpenInvitation(trx, accountId, request.params.id, { deleted_at: new Date() }));
      await recordAudit(trx, { accountId, resourceType: 'account_invitation', resourceId: request.params.id, action: 'delete', before });
    });
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
