import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { scopeOf } from '../../http/auth.ts';
import { listAnswer, listOf } from '../../http/pagination.ts';
import { IdParams, MessageSchema } from '../../http/schemas.ts';
import type { RoutesPlugin } from '../../services.ts';
import { listServices } from './vendor-services.repository.ts';
import { CreateServiceBody, ServiceListQuery, ServiceSchema, toService, UpdateServiceBody } from './vendor-services.schema.ts';
import { changeService, createService, findService, removeService } from './vendor-services.service.ts';

const tags = ['Services'];
const read = { auth: 'account' } as const;
const write = { auth: 'account', admin: true } as const;
const Wrapped = Type.Object({ data: ServiceSchema });

/** The third-party services (vendors) a website uses: `/services`, account-scoped like the categories. */
export const vendorServicesRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/services', {
    config: read,
    schema: {
      operationId: 'listServices', tags, summary: "The account's third-party services",
      querystring: ServiceListQuery,
      response: { 200: listOf(ServiceSchema) },
    },
  }, async (request) => listAnswer(request, { sort: 'created_at', order: 'asc' },
    (sort, window) => listServices(db, scopeOf(request).accountId, { category_id: request.query.category_id }, sort, window), toService));

  app.post('/services', {
    config: write,
    schema: {
      operationId: 'createService', tags, summary: 'Create a service in the account',
      body: CreateServiceBody,
      response: { 201: Wrapped },
    },
  }, async (request, reply) => {
    const row = await createService(db, scopeOf(request).accountId, request.body.service);
    // The banner names each category's services.
    await services.forgetBanner([row.account_id]);
    return reply.code(201).send({ data: toService(row) });
  });

  app.get('/services/:id', {
    config: read,
    schema: {
      operationId: 'getService', tags, summary: 'One service',
      params: IdParams,
      response: { 200: Wrapped },
    },
  }, async (request) => ({ data: toService(found(await findService(db, scopeOf(request).accountId, request.params.id))) }));

  app.put('/services/:id', {
    config: write,
    schema: {
      operationId: 'updateService', tags, summary: 'Change a service; only the fields sent change',
      params: IdParams,
      body: UpdateServiceBody,
      response: { 200: Wrapped },
    },
  }, async (request) => {
    const row = await changeService(db, scopeOf(request).accountId, request.params.id, request.body.service);
    await services.forgetBanner([row.account_id]);
    return { data: toService(row) };
  });

  app.delete('/services/:id', {
    config: write,
    schema: {
      operationId: 'deleteService', tags, summary: 'Delete a service',
      params: IdParams,
      response: { 200: MessageSchema },
    },
  }, async (request) => {
    await removeService(db, scopeOf(request).accountId, request.params.id);
    await services.forgetBanner([scopeOf(request).accountId]);
    return { message: 'Service was deleted successfully' };
  });
};
