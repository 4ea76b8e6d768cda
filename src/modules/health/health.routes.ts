import { sql } from 'kysely';
import { Type } from 'typebox';
import { UnavailableError } from '../../http/app-errors.ts';
import type { RoutesPlugin } from '../../http/routes-plugin.ts';
import { ErrorList } from '../../http/schemas.ts';

const Status = Type.Object({ status: Type.String() });

export const healthRoutes: RoutesPlugin = async (app, { services }) => {
  app.get('/healthz', {
    config: { auth: 'none' },
    schema: { operationId: 'health', tags: ['Operations'], summary: 'The process is up', response: { 200: Status } },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    config: { auth: 'none' },
    schema: {
      operationId: 'ready',
      tags: ['Operations'],
      summary: 'The database answers',
      response: { 200: Status, 503: ErrorList },
    },
  }, async () => {
    try {
      await sql`select 1`.execute(services.db);
    } catch {
      throw new UnavailableError('Database unavailable', 5);
    }
    return { status: 'ok' };
  });
};
