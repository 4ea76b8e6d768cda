import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { offsetWindow, OLDEST_FIRST, paginate, sortOf } from '../../http/pagination.ts';
import { ACCOUNT_ACCESS, resourceRoutes } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { IdParams, ValidationErrorList } from '../../http/schemas.ts';
import { findScan, listScans } from './scans.repository.ts';
import { CreateScanBody, RemovedItems, RemoveUnseenBody, ScanListQuery, ScanSchema, toScan } from './scans.schema.ts';
import { cancelQueuedOrRunning, findingsOf, queueScan, removeUnseen, unseenItemsOf } from './scans.service.ts';

const tags = ['Scans'];
const Wrapped = Type.Object({ data: ScanSchema });

export const scansRoutes: RoutesPlugin = async (app, { services }) => {
  const { db, config } = services;
  const scans = resourceRoutes(app, { path: '/scans', tags, access: ACCOUNT_ACCESS });

  scans.list({
    operationId: 'listScans', summary: "The account's website scans, with their reports",
    querystring: ScanListQuery, item: ScanSchema,
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const window = offsetWindow(request.query);
    const { rows, count } = await listScans(db, accountId, request.query, sortOf(request.query, OLDEST_FIRST), window);
    const findings = await findingsOf(db, accountId, rows);
    return { pagination: paginate(request, window, count), data: rows.map((row) => toScan(row, findings.get(row.id))) };
  });

  scans.create({
    operationId: 'createScan',
    summary: "Queue a scan of the account's website: every cookie and storage key, and what is set before consent",
    body: CreateScanBody, answer: Wrapped,
  }, async (request) => {
    const row = await queueScan(db, config, scopeOf(request).accountId, request.body.scan);
    services.scans.wake();
    return { data: toScan(row) };
  });

  scans.one({ operationId: 'getScan', summary: 'One scan: its progress, then its report', answer: Wrapped }, async (request) => {
    const { accountId } = scopeOf(request);
    const row = found(await findScan(db, accountId, request.params.id));
    const findings = await findingsOf(db, accountId, [row]);
    return { data: toScan(row, { ...findings.get(row.id)!, unseen_items: await unseenItemsOf(db, accountId, row) }) };
  });

  scans.act('remove-unseen-items', {
    operationId: 'removeUnseenItems',
    summary: "Remove storage items a completed scan did not find, nor any later one (the report's unseen_items), such as the demo's examples",
    body: RemoveUnseenBody, answer: RemovedItems,
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const removed = await removeUnseen(db, accountId, request.params.id, request.body.storage_item_ids);
    if (removed.length > 0) await services.forgetBanner([accountId]);
    return { data: { removed } };
  });

  // Cancelling answers the scan as it now is, not a message: not the shape of a deletion.
  app.delete('/scans/:id', {
    config: ACCOUNT_ACCESS.write,
    schema: {
      operationId: 'cancelScan', tags, summary: 'Cancel a queued or running scan',
      params: IdParams,
      response: { 200: Wrapped, 422: ValidationErrorList },
    },
  }, async (request) => ({ data: toScan(await cancelQueuedOrRunning(db, scopeOf(request).accountId, request.params.id)) }));
};
