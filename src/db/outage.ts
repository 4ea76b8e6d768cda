/**
 * Which database failures are outages (answered 503 with Retry-After, and recovered from without a
 * restart) rather than bugs (500): the server is unreachable or restarting, the connection was lost,
 * the database or the schema is missing, or the credentials are refused.
 */
const OUTAGE_CODES: Record<string, string> = {
  ECONNREFUSED: 'the database server refuses connections',
  ECONNRESET: 'the connection to the database was lost',
  ETIMEDOUT: 'the database server does not answer',
  EPIPE: 'the connection to the database was lost',
  ENOTFOUND: 'the database host name does not resolve',
  EAI_AGAIN: 'the database host name does not resolve',
  '57P01': 'the database server is shutting down',
  '57P02': 'the database server is shutting down',
  '57P03': 'the database server is starting up',
  '08000': 'the connection to the database was lost',
  '08001': 'the database server cannot be reached',
  '08003': 'the connection to the database was lost',
  '08004': 'the database server refused the connection',
  '08006': 'the connection to the database was lost',
  '53300': 'the database server has no connections left',
  '3D000': 'the database does not exist',
  '3F000': 'the schema does not exist',
  '42P01': 'a table is missing (the schema was dropped, or the migrations were not applied)',
  '28000': 'the database refused the credentials',
  '28P01': 'the database refused the password',
};

const OUTAGE_MESSAGES = /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|connection error and is not queryable|Client was closed/;

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = codeOf(error);
  if (code && code in OUTAGE_CODES) return true;
  return OUTAGE_MESSAGES.test(error.message);
}

/** One line for an operator whose server could not start on its database: what is wrong, what to do. */
export function describeStartupOutage(error: unknown): string | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  const code = codeOf(error);
  const what = (code && OUTAGE_CODES[code]) ?? 'the database cannot be reached';
  const todo = code === '3D000'
    ? 'create it (e.g. `createdb NAME`) or fix the name in DATABASE_URL'
    : code === '28000' || code === '28P01'
      ? 'fix the user and password in DATABASE_URL'
      : 'check that PostgreSQL is running and that DATABASE_URL names it';
  return `cannot start: ${what} (${(error as Error).message}); ${todo}`;
}
