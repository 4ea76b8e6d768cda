import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { scopeOf } from '../../http/auth.ts';
import { listAnswer, OLDEST_FIRST } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { listServices } from './vendor-services.repository.ts';
import { CreateServiceBody, ServiceListQuery, ServiceSchema, toService, UpdateServiceBody } from './vendor-services.schema.ts';
import { changeService, createService, findService, removeService } from './vendor-services.service.ts';

const Wrapped = Type.Object({ data: ServiceSchema });

/** The third-party services (vendors) a website uses: `/services`, account-scoped like the categories. */
export const vendorServicesRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const vendors = resourceRoutes(app, { path: '/services', tags: ['Services'], access: ACCOUNT_ACCESS });

  vendors.list({
    operationId: 'listServices', summary: "The account's third-party services",
    querystring: ServiceListQuery, item: ServiceSchema,
  }, (request) => listAnswer(request, OLDEST_FIRST,
    (sort, window) => listServices(db, scopeOf(request).accountId, { category_id: request.query.category_id }, sort, window), toService));

  // The banner names each category's services: a change is forgotten there.
  vendors.create({ operationId: 'createService', summary: 'Create a service in the account', body: CreateServiceBody, answer: Wrapped }, async (request) => {
    const row = await createService(db, scopeOf(request).accountId, request.body.service);
    await services.forgetBanner([row.account_id]);
    return { data: toService(row) };
  });

  vendors.one({ operationId: 'getService', summary: 'One service', answer: Wrapped },
    async (request) => ({ data: toService(found(await findService(db, scopeOf(request).accountId, request.params.id))) }));

  vendors.change({
    operationId: 'updateService', summary: 'Change a service; only the fields sent change',
    body: UpdateServiceBody, answer: Wrapped,
  }, async (request) => {
    const row = await changeService(db, scopeOf(request).accountId, request.params.id, request.body.service);
    await services.forgetBanner([row.account_id]);
    return { data: toService(row) };
  });

  vendors.remove({ operationId: 'deleteService', summary: 'Delete a service', message: 'Service was deleted successfully' }, async (request) => {
    await removeService(db, scopeOf(request).accountId, request.params.id);
    await services.forgetBanner([scopeOf(request).accountId]);
  });
};
