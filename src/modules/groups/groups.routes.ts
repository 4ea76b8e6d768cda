import { found } from '../../http/app-errors.ts';
import { principalOf } from '../../http/auth.ts';
import { listOf, pageWindow, paginate } from '../../http/pagination.ts';
import { IdParams, MessageSchema, ValidationErrorList } from '../../http/schemas.ts';
import type { RoutesPlugin } from '../../services.ts';
import { findGroup, listGroups } from './groups.repository.ts';
import { CreateGroupBody, GroupListQuery, GroupSchema, toGroup, UpdateGroupBody } from './groups.schema.ts';
import { changeGroup, createGroup, removeGroup } from './groups.service.ts';

const tags = ['Groups'];
const config = { auth: 'partner' } as const;

export const groupsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/groups', {
    config,
    schema: {
      operationId: 'listGroups', tags, summary: 'List the partner\'s groups',
      querystring: GroupListQuery,
      response: { 200: listOf(GroupSchema) },
    },
  }, async (request) => {
    const window = pageWindow(request.query);
    const { rows, count } = await listGroups(db, principalOf(request).partnerId!, { external_id: request.query.external_id }, window);
    return { pagination: paginate(request, window, count), data: rows.map(toGroup) };
  });

  app.post('/groups', {
    config,
    schema: {
      operationId: 'createGroup', tags, summary: 'Create a group',
      body: CreateGroupBody,
      response: { 201: GroupSchema },
    },
  }, async (request, reply) => {
    return reply.code(201).send(toGroup(await createGroup(db, principalOf(request).partnerId!, request.body.group)));
  });

  app.get('/groups/:id', {
    config,
    schema: {
      operationId: 'getGroup', tags, summary: 'One group',
      params: IdParams,
      response: { 200: GroupSchema },
    },
  }, async (request) => {
    const row = found(await findGroup(db, principalOf(request).partnerId!, request.params.id));
    return toGroup(row);
  });

  app.put('/groups/:id', {
    config,
    schema: {
      operationId: 'updateGroup', tags, summary: 'Update a group',
      params: IdParams,
      body: UpdateGroupBody,
      response: { 200: GroupSchema },
    },
  }, async (request) => {
    return toGroup(await changeGroup(db, principalOf(request).partnerId!, request.params.id, request.body.group));
  });

  app.delete('/groups/:id', {
    config,
    schema: {
      operationId: 'deleteGroup', tags, summary: 'Delete an empty group',
      params: IdParams,
      response: { 200: MessageSchema, 422: ValidationErrorList },
    },
  }, async (request) => {
    await removeGroup(db, principalOf(request).partnerId!, request.params.id);
    return { message: 'Group was deleted successfully' };
  });
};
