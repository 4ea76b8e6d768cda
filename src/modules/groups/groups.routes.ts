import type { FastifyRequest } from 'fastify';
import { found } from '../../http/app-errors.ts';
import { principalOf } from '../../http/auth.ts';
import { pageWindow, paginate } from '../../http/pagination.ts';
import { resourceRoutes, sameAccess } from '../../http/resource-routes.ts';
import { ValidationErrorList } from '../../http/schemas.ts';
import type { RoutesPlugin } from '../../services.ts';
import { findGroup, listGroups } from './groups.repository.ts';
import { CreateGroupBody, GroupListQuery, GroupSchema, toGroup, UpdateGroupBody } from './groups.schema.ts';
import { changeGroup, createGroup, removeGroup } from './groups.service.ts';

export const groupsRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const groups = resourceRoutes(app, { path: '/groups', tags: ['Groups'], access: sameAccess({ auth: 'partner' }) });
  const partnerOf = (request: FastifyRequest) => principalOf(request).partnerId!;

  groups.list({
    operationId: 'listGroups', summary: 'List the partner\'s groups',
    querystring: GroupListQuery, item: GroupSchema,
  }, async (request) => {
    const window = pageWindow(request.query);
    const { rows, count } = await listGroups(db, partnerOf(request), { external_id: request.query.external_id }, window);
    return { pagination: paginate(request, window, count), data: rows.map(toGroup) };
  });

  groups.create({ operationId: 'createGroup', summary: 'Create a group', body: CreateGroupBody, answer: GroupSchema },
    async (request) => toGroup(await createGroup(db, partnerOf(request), request.body.group)));

  groups.one({ operationId: 'getGroup', summary: 'One group', answer: GroupSchema },
    async (request) => toGroup(found(await findGroup(db, partnerOf(request), request.params.id))));

  groups.change({ operationId: 'updateGroup', summary: 'Update a group', body: UpdateGroupBody, answer: GroupSchema },
    async (request) => toGroup(await changeGroup(db, partnerOf(request), request.params.id, request.body.group)));

  groups.remove({
    operationId: 'deleteGroup', summary: 'Delete an empty group',
    message: 'Group was deleted successfully', errors: { 422: ValidationErrorList },
  }, (request) => removeGroup(db, partnerOf(request), request.params.id));
};
