import { sql } from 'kysely';
import { Type } from 'typebox';
import { UnavailableError } from '../../http/app-errors.ts';
import type { RoutesPlugin } from '../../services.ts';
import { ErrorList } from '../../http/schemas.ts';

const Status = Type.Object({ status: Type.String() });
const Readiness = Type.Object({
  status: Type.String({ description: '`ok`, or `degraded` (still ready) while Redis is unreachable or the read replica is passed over' }),
  redis: Type.Optional(Type.String({ description: '`unreachable` while Redis is configured but lost' })),
  replica: Type.Optional(Type.String({
    description: 'With DATABASE_READ_URL: `ok`; `lagging` (past DATABASE_READ_MAX_LAG_S) or `unreachable` while its reads go to the primary',
  })),
  replica_lag_s: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'How stale the replica may be, in seconds; null when unknown' })),
});

export const healthRoutes: RoutesPlugin = async (app, { services }) => {
  // The loss of Redis and its return are logged once each: limits are then counted per instance.
  services.redis?.onStateChange((up) => {
    if (up) app.log.info('Redis is reachable again: limits and invalidations are shared across instances');
    else app.log.warn('Redis is unreachable: rate limits and invalidations are per instance until it returns');
  });

  app.get('/healthz', {
    config: { auth: 'none' },
    schema: { operationId: 'health', tags: ['Operations'], summary: 'The process is up', response: { 200: Status } },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    config: { auth: 'none' },
    schema: {
      operationId: 'ready',
      tags: ['Operations'],
      summary: 'The database answers and holds the schema; degraded (still 200) while Redis is lost or the read replica lags; 503 while stopping',
      response: { 200: Readiness, 503: ErrorList },
    },
  }, async () => {
    // Stopping (SIGTERM): the balancer takes this instance out while it still serves what it is sent.
    if (services.draining.active) throw new UnavailableError('Shutting down', 5);
    try {
      // A real table, not `select 1`: a dropped schema or database answers `select 1` just fine.
      await services.db.selectFrom('accounts').select(sql<number>`1`.as('one')).limit(1).execute();
    } catch {
      throw new UnavailableError('Database unavailable', 5);
    }
    // A replica passed over leaves the instance ready: the primary serves its reads meanwhile.
    const replica = services.replicaStatus();
    const replicaFields = replica ? { replica: replica.state === 'starting' ? 'unreachable' : replica.state, replica_lag_s: replica.lagS } : {};
    const degraded = (services.redis && !services.redis.up) || (replica && replica.state !== 'ok');
    return {
      status: degraded ? 'degraded' : 'ok',
      ...(services.redis && !services.redis.up ? { redis: 'unreachable' } : {}),
      ...replicaFields,
    };
  });
};
