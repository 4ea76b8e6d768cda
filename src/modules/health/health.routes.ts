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
      summary: 'The database answers and holds the schema',
      response: { 200: Status, 503: ErrorList },
    },
  }, async () => {
    try {
      // A real table, not `select 1`: a dropped schema or database answers `select 1` just fine.
      await services.db.selectFrom('accounts').select(sql<number>`1`.as('one')).limit(1).execute();
    } catch {
      throw new UnavailableError('Database unavailable', 5);
    }
    return { status: 'ok' };
  });
};
