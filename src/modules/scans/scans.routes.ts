import { Type } from 'typebox';
import { found } from '../../http/app-errors.ts';
import { listOf, offsetWindow, paginate, sortOf } from '../../http/pagination.ts';
import type { RoutesPlugin } from '../../services.ts';
import { scopeOf } from '../../http/auth.ts';
import { IdParams, ValidationErrorList } from '../../http/schemas.ts';
import { findScan, listScans } from './scans.repository.ts';
import { CreateScanBody, RemovedItems, RemoveUnseenBody, ScanListQuery, ScanSchema, toScan } from './scans.schema.ts';
import { cancelQueuedOrRunning, findingsOf, queueScan, removeUnseen, unseenItemsOf } from './scans.service.ts';

const tags = ['Scans'];
const read = { auth: 'account' } as const;
const write = { auth: 'account', admin: true } as const;
const Wrapped = Type.Object({ data: ScanSchema });

export const scansRoutes: RoutesPlugin = async (app, { services }) => {
  const { db, config } = services;

  app.get('/scans', {
    config: read,
    schema: {
      operationId: 'listScans', tags, summary: "The account's website scans, with their reports",
      querystring: ScanListQuery,
      response: { 200: listOf(ScanSchema) },
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const window = offsetWindow(request.query);
    const sort = sortOf(request.query, { sort: 'created_at', order: 'asc' });
    const { rows, count } = await listScans(db, accountId, request.query, sort, window);
    const findings = await findingsOf(db, accountId, rows);
    return { pagination: paginate(request, window, count), data: rows.map((row) => toScan(row, findings.get(row.id))) };
  });

  app.post('/scans', {
    config: write,
    schema: {
      operationId: 'createScan', tags,
      summary: "Queue a scan of the account's website: every cookie and storage key, and what is set before consent",
      body: CreateScanBody,
      response: { 201: Wrapped },
    },
  }, async (request, reply) => {
    const row = await queueScan(db, config, scopeOf(request).accountId, request.body.scan);
    services.scans.wake();
    return reply.code(201).send({ data: toScan(row) });
  });

  app.get('/scans/:id', {
    config: read,
    schema: {
      operationId: 'getScan', tags, summary: 'One scan: its progress, then its report',
      params: IdParams,
      response: { 200: Wrapped },
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const row = found(await findScan(db, accountId, request.params.id));
    const findings = await findingsOf(db, accountId, [row]);
    return { data: toScan(row, { ...findings.get(row.id)!, unseen_items: await unseenItemsOf(db, accountId, row) }) };
  });

  app.post('/scans/:id/remove-unseen-items', {
    config: write,
    schema: {
      operationId: 'removeUnseenItems', tags,
      summary: "Remove storage items a completed scan did not find, nor any later one (the report's unseen_items), such as the demo's examples",
      params: IdParams,
      body: RemoveUnseenBody,
      response: { 200: RemovedItems },
    },
  }, async (request) => {
    const { accountId } = scopeOf(request);
    const removed = await removeUnseen(db, accountId, request.params.id, request.body.storage_item_ids);
    if (removed.length > 0) await services.forgetBanner([accountId]);
    return { data: { removed } };
  });

  app.delete('/scans/:id', {
    config: write,
    schema: {
      operationId: 'cancelScan', tags, summary: 'Cancel a queued or running scan',
      params: IdParams,
      response: { 200: Wrapped, 422: ValidationErrorList },
    },
  }, async (request) => {
    const row = await cancelQueuedOrRunning(db, scopeOf(request).accountId, request.params.id);
    return { data: toScan(row) };
  });
};
