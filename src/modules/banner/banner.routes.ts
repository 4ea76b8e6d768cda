import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { BannerResponse, UpdateBannerBody } from './banner.schema.ts';
import { changeBanner, getBanner, previewBanner, requestReconsent } from './banner.service.ts';

/** The account's banner: its look, its texts, and the revision that asks visitors again. */
export const bannerRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;
  const banner = resourceRoutes(app, { path: '/banner', tags: ['Banner'], access: ACCOUNT_ACCESS });

  banner.route('GET', '', {
    rule: 'read', operationId: 'getBanner', summary: "The account's banner settings, defaults filled in",
    response: { 200: BannerResponse },
  }, async (request) => ({ data: await getBanner(db, scopeOf(request).accountId) }));

  banner.route('PATCH', '', {
    rule: 'write', operationId: 'updateBanner',
    summary: 'Change the banner; only the settings sent change (theme colours and texts one by one)',
    body: UpdateBannerBody, response: { 200: BannerResponse },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const data = await changeBanner(db, accountId, request.body.banner, await services.vendorLists.current());
    await services.forgetBanner([accountId]);
    return { data };
  });

  banner.route('POST', '/preview', {
    rule: 'read', operationId: 'previewBanner',
    summary: 'The banner script as it would be with these changes, saved nowhere: for a live preview',
    body: UpdateBannerBody,
    response: {
      200: { description: 'The account\'s banner script with the changes applied', content: { 'text/javascript': { schema: Type.String() } } },
    },
  }, async (request, reply) => {
    const { accountId } = scopeOf(request);
    const settings = await previewBanner(db, accountId, request.body.banner, await services.vendorLists.current());
    const script = found(await services.bannerScripts.preview(accountId, settings));
    return reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'no-store').send(script);
  });

  banner.route('POST', '/reconsent', {
    rule: 'write', operationId: 'requestReconsent',
    summary: 'Raise the revision: every visitor is asked again on their next page view',
    response: { 200: BannerResponse },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const data = await requestReconsent(db, accountId);
    await services.forgetBanner([accountId]);
    return { data };
  });
};
