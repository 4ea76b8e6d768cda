import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { BannerResponse, UpdateBannerBody } from './banner.schema.ts';
import { changeBanner, getBanner, previewBanner, requestReconsent } from './banner.service.ts';

const tags = ['Banner'];

/** The account's banner: its look, its texts, and the revision that asks visitors again. */
export const bannerRoutes: RoutesPlugin = async (app, { services }) => {
  const { db } = services;

  app.get('/banner', {
    config: { auth: 'account' },
    schema: {
      operationId: 'getBanner', tags, summary: "The account's banner settings, defaults filled in",
      response: { 200: BannerResponse },
    },
  }, async (request) => ({ data: await getBanner(db, scopeOf(request).accountId) }));

  app.patch('/banner', {
    config: { auth: 'account', admin: true },
    schema: {
      operationId: 'updateBanner', tags,
      summary: 'Change the banner; only the settings sent change (theme colours and texts one by one)',
      body: UpdateBannerBody,
      response: { 200: BannerResponse },
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const data = await changeBanner(db, accountId, request.body.banner);
    await services.forgetBanner([accountId]);
    return { data };
  });

  app.post('/banner/preview', {
    config: { auth: 'account' },
    schema: {
      operationId: 'previewBanner', tags,
      summary: 'The banner script as it would be with these changes, saved nowhere: for a live preview',
      body: UpdateBannerBody,
      response: {
        200: { description: 'The account\'s banner script with the changes applied', content: { 'text/javascript': { schema: Type.String() } } },
      },
    },
  }, async (request, reply) => {
    const { accountId } = scopeOf(request);
    const settings = await previewBanner(db, accountId, request.body.banner);
    const script = found(await services.bannerScripts.preview(accountId, settings));
    return reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'no-store').send(script);
  });

  app.post('/banner/reconsent', {
    config: { auth: 'account', admin: true },
    schema: {
      operationId: 'requestReconsent', tags,
      summary: 'Raise the revision: every visitor is asked again on their next page view',
      response: { 200: BannerResponse },
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const data = await requestReconsent(db, accountId);
    await services.forgetBanner([accountId]);
    return { data };
  });
};
