import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { VendorListSummary } from './tcf.schema.ts';
import { vendorListSummary } from './tcf.service.ts';

/** The IAB Global Vendor List in force: the same for every account, read by any member (the dashboard's vendor picker). */
export const tcfRoutes: RoutesPlugin = async (app, { services }) => {
  const tcf = resourceRoutes(app, { path: '/tcf', tags: ['Banner'], access: ACCOUNT_ACCESS });
  tcf.route('GET', '/vendor-list', {
    rule: 'read', operationId: 'getTcfVendorList',
    summary: 'The IAB Global Vendor List in force: its version and its vendors (id, name); null when none is loaded',
    response: { 200: VendorListSummary },
  }, async () => ({ data: vendorListSummary(await services.vendorLists.current()) }));
};
