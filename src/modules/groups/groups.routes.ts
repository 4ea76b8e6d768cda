import { isUniqueViolation } from '../../db/kysely.ts';
import { found, NotFoundError, ValidationError } from '../../http/app-errors.ts';
import { listOf, pageWindow, paginate } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { principalOf } from '../../http/auth.ts';
import { IdParams, MessageSchema, withErrors } from '../../http/schemas.ts';
import { Problems } from '../../http/validate.ts';
import {
  deleteGroup,
  externalIdTaken,
  findGroup,
  groupHasAccounts,
  insertGroup,
  listGroups,
  updateGroup,
} from './groups.repository.ts';
import {
  CreateGroupBody,
  GroupListQuery,
  GroupSchema,
  toGroup,
  UpdateGroupBody,
  type GroupFields,
} from './groups.schema.ts';

const tags = ['Groups'];
const security = [{ bearer: [] }];
const config = { auth: 'partner' } as const;
const EXTERNAL_ID_TAKEN = 'External id has already been taken';

export const groupsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  /** Trims the texts, turns a blank external id into none, and checks it is free for the partner. */
  async function clean(partnerId: string, fields: GroupFields, exceptId?: string): Promise<GroupFields> {
    const problems = new Problems();
    const out: GroupFields = { ...fields };
    if (fields.name !== undefined) out.name = problems.required('name', fields.name ?? undefined);
    if (fields.external_id !== undefined) {
      out.external_id = fields.external_id?.trim() || null;
      if (out.external_id && (await externalIdTaken(db, partnerId, out.external_id, exceptId))) {
        problems.add('external_id', 'has already been taken');
      }
    }
    problems.throwIfAny();
    return out;
  }

  const rethrowTaken = (error: unknown): never => {
    if (isUniqueViolation(error)) throw new ValidationError(EXTERNAL_ID_TAKEN);
    throw error;
  };

  app.get('/groups', {
    config,
    schema: {
      operationId: 'listGroups', tags, security, summary: 'List the partner\'s groups',
      querystring: GroupListQuery,
      response: withErrors({ 200: listOf(GroupSchema) }, { 400: 'array' }),
    },
  }, async (request) => {
    const window = pageWindow(request.query);
    const { rows, count } = await listGroups(db, principalOf(request).partnerId!, window);
    return { pagination: paginate(request, window, count), data: rows.map(toGroup) };
  });

  app.post('/groups', {
    config,
    schema: {
      operationId: 'createGroup', tags, security, summary: 'Create a group',
      body: CreateGroupBody,
      response: withErrors({ 201: GroupSchema }, { 413: true, 415: true, 422: true }),
    },
  }, async (request, reply) => {
    const partnerId = principalOf(request).partnerId!;
    const fields = await clean(partnerId, request.body.group);
    const row = await insertGroup(db, partnerId, { ...fields, name: fields.name! }).catch(rethrowTaken);
    return reply.code(201).send(toGroup(row));
  });

  app.get('/groups/:id', {
    config,
    schema: {
      operationId: 'getGroup', tags, security, summary: 'One group',
      params: IdParams,
      response: withErrors({ 200: GroupSchema }, { 404: true }),
    },
  }, async (request) => {
    const row = found(await findGroup(db, principalOf(request).partnerId!, request.params.id));
    return toGroup(row);
  });

  app.put('/groups/:id', {
    config,
    schema: {
      operationId: 'updateGroup', tags, security, summary: 'Update a group',
      params: IdParams,
      body: UpdateGroupBody,
      response: withErrors({ 200: GroupSchema }, { 404: true, 413: true, 415: true, 422: true }),
    },
  }, async (request) => {
    const partnerId = principalOf(request).partnerId!;
    if (!(await findGroup(db, partnerId, request.params.id))) throw new NotFoundError();
    const fields = await clean(partnerId, request.body.group, request.params.id);
    const row = found(await updateGroup(db, partnerId, request.params.id, fields).catch(rethrowTaken));
    return toGroup(row);
  });

  app.delete('/groups/:id', {
    config,
    schema: {
      operationId: 'deleteGroup', tags, security, summary: 'Delete an empty group',
      params: IdParams,
      response: withErrors({ 200: MessageSchema }, { 404: true, 422: true }),
    },
  }, async (request) => {
    const partnerId = principalOf(request).partnerId!;
    const { id } = request.params;
    if (!(await findGroup(db, partnerId, id))) throw new NotFoundError();
    if (await groupHasAccounts(db, id)) {
      throw new ValidationError('Group still holds accounts; move or delete them first');
    }
    if (!(await deleteGroup(db, partnerId, id))) throw new NotFoundError();
    return { message: 'Group was deleted successfully' };
  });
};
