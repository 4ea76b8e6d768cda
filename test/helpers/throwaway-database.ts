import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** `url` with its database name replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A new, empty PostgreSQL database on the server `serverUrl` names (made with `create database`, so
 * it needs no migration of anyone else's), for a test that needs a whole database: one that starts
 * unmigrated, or one reached through a pooler, which cannot set a schema per connection.
 */
export async function createThrowawayDatabase(serverUrl: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await admin(serverUrl, `create database ${name}`);
  return {
    name,
    url: withDatabase(serverUrl, name),
    // WITH (FORCE) ends the sessions still open on it: a pooler's server connections, a killed process's.
    drop: () => admin(serverUrl, `drop database if exists ${name} with (force)`),
  };
}
