import { Command, CommanderError } from 'commander';
import type { Kysely } from 'kysely';
import { ConfigError, loadConfig } from './config.ts';
import { DataDirInUseError } from './db/data-dir-lock.ts';
import { describeStartupOutage } from './db/outage.ts';
import { isId } from './db/ids.ts';
import type { Database, TokenType } from './db/schema.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './modules/users/users.schema.ts';
import { hashPassword } from './lib/passwords.ts';

// The modules that touch the database (Kysely, PGlite, TypeBox) are most of the start-up time:
// they are imported once the arguments have been checked, so that a typo is answered at once and
// never touches the database.

/** A mistake of the operator's: its message alone goes to stderr, without a stack. */
class UsageError extends Error {}

function nonBlank(value: string, option: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw new UsageError(`${option} must not be blank`);
  if (trimmed.length > 255) throw new UsageError(`${option} must have at most 255 characters`);
  return trimmed;
}

/** Opens the database, brings its schema up to date, runs one command and prints its result as one JSON object. */
async function withDatabase(command: (db: Kysely<Database>, migrated: string[]) => Promise<object>): Promise<void> {
  const config = loadConfig();
  const { createDb, migrate } = await import('./db/database.ts');
  const database = createDb(config);
  try {
    const migrated = await migrate(database, config.databaseSchema);
    const result = await command(database.kysely, migrated);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await database.close();
  }
}

/**
 * The partner a new token is filed under, so that the partner can list and revoke it as through the
 * API: the partner itself, or the one whose group holds the account. Null for a user's token or an
 * account outside any group; undefined when the id names nothing.
 */
async function owningPartner(db: Kysely<Database>, type: TokenType, id: string): Promise<string | null | undefined> {
  if (type === 'user') {
    return (await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) ? null : undefined;
  }
  if (type === 'partner') {
    return (await db.selectFrom('partners').select('id').where('id', '=', id).executeTakeFirst())?.id;
  }
  const account = await db
    .selectFrom('accounts')
    .leftJoin('groups', 'groups.id', 'accounts.group_id')
    .select('groups.partner_id')
    .where('accounts.id', '=', id)
    .executeTakeFirst();
  return account ? account.partner_id : undefined;
}

const program = new Command('consentry')
  .description('Consentry operator CLI: every command prints one JSON object on stdout')
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

program
  .command('migrate')
  .description('Bring the database schema up to date; prints the migrations applied')
  .action(() => withDatabase(async (_db, migrated) => ({ migrated })));

program
  .command('partners')
  .description('Partners')
  .command('create')
  .description('Create a partner and its partner token (csp_…), printed once')
  .requiredOption('--name <name>', 'partner name')
  .action(async (options: { name: string }) => {
    const name = nonBlank(options.name, '--name');
    await withDatabase(async (db) => {
      const { insertPartner } = await import('./modules/partners/partners.repository.ts');
      const { issueToken } = await import('./modules/tokens/tokens.service.ts');
      const partner = await insertPartner(db, name);
      const { token } = await issueToken(db, { type: 'partner', kind: 'api', name: 'CLI', partnerId: partner.id });
      return { partner: { id: partner.id, name: partner.name, created_at: partner.created_at.toISOString() }, token };
    });
  });

/** A password the API would accept, or the reason it would not. */
function passwordOption(password: string): string {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new UsageError(`--password must have between ${MIN_PASSWORD_LENGTH} and ${MAX_PASSWORD_LENGTH} characters`);
  }
  return password;
}

const users = program.command('users').description('Users');

users
  .command('create')
  .description('Create a user who can log in with POST /api/v1/auth')
  .requiredOption('--email <email>', 'login email')
  .requiredOption('--name <name>', 'display name')
  .requiredOption('--password <password>', `at least ${MIN_PASSWORD_LENGTH} characters`)
  .action(async (options: { email: string; name: string; password: string }) => {
    const email = options.email.trim();
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || email.length > 254) {
      throw new UsageError('--email is not an email address');
    }
    const name = nonBlank(options.name, '--name');
    const password = passwordOption(options.password);
    await withDatabase(async (db) => {
      const { findUserByEmail, insertUser } = await import('./modules/users/users.repository.ts');
      const { toUser } = await import('./modules/users/users.schema.ts');
      if (await findUserByEmail(db, email)) throw new UsageError(`a user with the email ${email} already exists`);
      const user = await insertUser(db, { name, email, passwordHash: await hashPassword(password) });
      return { user: toUser(user) };
    });
  });

// Without SMTP_URL a user cannot reset a forgotten password by email: the operator sets one here.
users
  .command('set-password')
  .description('Set a user\'s password without the old one, and log out every session of the user (named API tokens stay)')
  .requiredOption('--email <email>', 'login email of the user')
  .requiredOption('--password <password>', `the new password, at least ${MIN_PASSWORD_LENGTH} characters`)
  .action(async (options: { email: string; password: string }) => {
    const email = options.email.trim();
    const password = passwordOption(options.password);
    await withDatabase(async (db) => {
      const { findUser, findUserByEmail, setPassword } = await import('./modules/users/users.service.ts');
      const { toUser } = await import('./modules/users/users.schema.ts');
      const user = await findUserByEmail(db, email);
      if (!user) throw new UsageError(`no user with the email ${email}`);
      const revoked = await setPassword(db, user.id, password);
      return { user: toUser((await findUser(db, user.id))!), sessions_revoked: revoked.length };
    });
  });

program
  .command('tokens')
  .description('API tokens')
  .command('create')
  .description('Create a token for a partner, a user or an account; its secret is printed once')
  .option('--partner <id>', 'a partner token (csp_…) for this partner')
  .option('--user <id>', 'a user token (csu_…) for this user')
  .option('--account <id>', 'an account token (csa_…) for this account')
  .option('--name <name>', 'what the token is for', 'CLI')
  .action(async (options: { partner?: string; user?: string; account?: string; name: string }) => {
    const given = (['partner', 'user', 'account'] as const).filter((type) => options[type] !== undefined);
    if (given.length !== 1) throw new UsageError('give exactly one of --partner, --user, --account');
    const type = given[0];
    const id = options[type]!;
    if (!isId(id)) throw new UsageError(`--${type} must be an id (a UUID), got "${id}"`);
    const name = nonBlank(options.name, '--name');
    await withDatabase(async (db) => {
      const { issueToken } = await import('./modules/tokens/tokens.service.ts');
      const { toApiToken } = await import('./modules/tokens/tokens.schema.ts');
      const partnerId = await owningPartner(db, type, id);
      if (partnerId === undefined) throw new UsageError(`no ${type} with the id ${id}`);
      const { row, token } = await issueToken(db, {
        type,
        kind: 'api',
        name,
        partnerId,
        userId: type === 'user' ? id : null,
        accountId: type === 'account' ? id : null,
      });
      return { token, api_token: toApiToken(row) };
    });
  });

program
  .command('demo')
  .description('Create a demo partner, group, account, admin user, categories and storage items; print a token of each type')
  .action(() =>
    withDatabase(async (db) => {
      const { seedDemo } = await import('./demo.ts');
      return seedDemo(db);
    }),
  );

program
  .command('seed')
  .description('Synthetic data for benchmarks and capacity tests')
  .command('consents')
  .requiredOption('--account <id>', 'the account that receives them')
  .option('--count <n>', 'how many consents', '1000000')
  .option('--days <n>', 'spread over this many days up to now', '30')
  .description('Bulk-create chained consents with their rollups (1,000,000 take about a minute on PostgreSQL)')
  .action((options: { account: string; count: string; days: string }) => {
    const count = Number(options.count);
    if (!Number.isInteger(count) || count < 1 || count > 100_000_000) {
      throw new UsageError('--count must be a whole number between 1 and 100000000');
    }
    const days = Number(options.days);
    if (!Number.isInteger(days) || days < 1 || days > 3650) throw new UsageError('--days must be a whole number between 1 and 3650');
    if (!isId(options.account)) throw new UsageError(`no account with id ${options.account}`);
    return withDatabase(async (db) => {
      const account = await db.selectFrom('accounts').select('id').where('id', '=', options.account).executeTakeFirst();
      if (!account) throw new UsageError(`no account with id ${options.account}`);
      const { seedConsents } = await import('./modules/consents/consent-seed.ts');
      const started = performance.now();
      await seedConsents(db, account.id, count, days);
      return { account_id: account.id, consents: count, seconds: Math.round((performance.now() - started) / 100) / 10 };
    });
  });

program
  .command('consents')
  .description('Consents')
  .command('verify')
  .description('Recompute an account\'s consent hash chain; prints {valid, checked, first_bad_id} and exits 2 when it is broken')
  .requiredOption('--account <id>', 'the account whose chain to verify')
  .action(async (options: { account: string }) => {
    if (!isId(options.account)) throw new UsageError(`no account with id ${options.account}`);
    let broken = false;
    await withDatabase(async (db) => {
      const account = await db.selectFrom('accounts').select('id').where('id', '=', options.account).executeTakeFirst();
      if (!account) throw new UsageError(`no account with id ${options.account}`);
      const { verifyChain } = await import('./modules/consent-proof/consent-proof.service.ts');
      const result = await verifyChain(db, account.id);
      broken = !result.valid;
      return { account_id: account.id, ...result };
    });
    if (broken) process.exitCode = 2;
  });

program
  .command('tcf-gvl-load')
  .description('Store the IAB Global Vendor List: a vendor-list.json, or a folder with it and purposes-xx.json; prints {version, stored, languages}')
  .argument('<file-or-folder>', 'the vendor list file, or the folder holding it and its translations')
  .action(async (path: string) => {
    const { readVendorListSource } = await import('./modules/tcf/vendor-lists.ts');
    const { VendorListError } = await import('./modules/tcf/vendor-list.ts');
    // Read and checked before the database is opened: a broken file never touches it.
    const source = await readVendorListSource(path).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(error instanceof VendorListError ? `${path}: ${error.message}` : code === 'ENOENT' ? `${path}: no such file or folder` : String(error));
    });
    await withDatabase(async (db) => {
      const { storeVendorList } = await import('./modules/tcf/tcf.repository.ts');
      const stored = await storeVendorList(db, source.list, source.translations);
      return { version: source.list.vendorListVersion, stored, languages: Object.keys(source.translations) };
    });
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  // Commander has already written its own message (or the help) to stderr.
  if (error instanceof CommanderError) process.exit(error.exitCode);
  const known = error instanceof UsageError || error instanceof ConfigError || error instanceof DataDirInUseError;
  const outage = describeStartupOutage(error);
  process.stderr.write(`consentry: ${known ? (error as Error).message : outage ?? String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
