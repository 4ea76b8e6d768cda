import { PostgresDialect, PostgresIntrospector, sql, type DatabaseIntrospector, type Kysely, type TableMetadata } from 'kysely';

/**
 * Lists the tables of the connection's own schema (the first of its search_path) and nothing else.
 * Kysely's introspector reads every column of every schema in the database, through a function that
 * fails when another process drops one of those tables meanwhile; the migrator only asks whether its
 * own two tables exist. Deployments that share a database between schemas (and the test suite, which
 * gives each test file its own) then migrate side by side.
 */
class OwnSchemaIntrospector extends PostgresIntrospector {
  constructor(private readonly database: Kysely<any>) {
    super(database);
  }

  override async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, n.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'v', 'p')`.execute(this.database);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: row.kind === 'v', columns: [] }));
  }
}

export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}
