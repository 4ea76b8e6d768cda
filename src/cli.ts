import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from './config.ts';
import { DataDirInUseError } from './db/data-dir-lock.ts';
import { createDb, migrate } from './db/database.ts';
import type { Executor } from './db/kysely.ts';
import { insertPartner } from './modules/partners/partners.repository.ts';
import { issueToken } from './modules/tokens/tokens.service.ts';
import { toApiToken } from './modules/tokens/tokens.schema.ts';
import { hashPassword, MIN_PASSWORD_LENGTH } from './modules/users/passwords.ts';
import { findUserByEmail, insertUser } from './modules/users/users.repository.ts';
import { toUser } from './modules/users/users.schema.ts';
import { seedDemo } from './demo.ts';

class UsageError extends Error {}

/** Opens the database, migrates it, runs one command and prints its JSON result. */
async function run(command: (db: Executor) => Promise<unknown>): Promise<void> {
  const config = loadConfig();
  const database = createDb(config);
  try {
    await migrate(database, config.databaseSchema);
    const result = await command(database.kysely);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await database.close();
  }
}

const program = new Command('consentry').description('Consentry operator CLI').exitOverride();

program.command('migrate').description('Bring the database schema up to date').action(async () => {
  const config = loadConfig();
  const database = createDb(config);
  try {
    const applied = await migrate(database, config.databaseSchema);
    process.stdout.write(`${JSON.stringify({ migrated: applied })}\n`);
  } finally {
    await database.close();
  }
});

program
  .command('partners')
  .description('Partners')
  .command('create')
  .requiredOption('--name <name>', 'partner name')
  .description('Create a partner and its partner token (csp_…)')
  .action(async ({ name }: { name: string }) =>
    run(async (db) => {
      if (!name.trim()) throw new UsageError('--name must not be blank');
      const partner = await insertPartner(db, name.trim());
      const { token } = await issueToken(db, { type: 'partner', kind: 'api', name: 'CLI', partnerId: partner.id });
      return { partner: { id: partner.id, name: partner.name, created_at: partner.created_at.toISOString() }, token };
    }),
  );

program
  .command('users')
  .description('Users')
  .command('create')
  .requiredOption('--email <email>')
  .requiredOption('--name <name>')
  .requiredOption('--password <password>')
  .description('Create a user who can log in with POST /auth')
  .action(async (options: { email: string; name: string; password: string }) =>
    run(async (db) => {
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(options.email)) throw new UsageError('--email is not an email address');
      if (options.password.length < MIN_PASSWORD_LENGTH) {
        throw new UsageError(`--password must have at least ${MIN_PASSWORD_LENGTH} characters`);
      }
      if (await findUserByEmail(db, options.email)) throw new UsageError('a user with that email already exists');
      const user = await insertUser(db, {
        name: options.name.trim(),
        email: options.email,
        passwordHash: await hashPassword(options.password),
      });
      return { user: toUser(user) };
    }),
  );

program
  .command('tokens')
  .description('API tokens')
  .command('create')
  .option('--partner <id>', 'a partner token for this partner')
  .option('--user <id>', 'a user token for this user')
  .option('--account <id>', 'an account token for this account')
  .option('--name <name>', 'what the token is for')
  .description('Create a token; its secret is printed once')
  .action(async (options: { partner?: string; user?: string; account?: string; name?: string }) =>
    run(async (db) => {
      const targets = [options.partner, options.user, options.account].filter(Boolean);
      if (targets.length !== 1) throw new UsageError('give exactly one of --partner, --user, --account');
      const type = options.partner ? 'partner' : options.user ? 'user' : 'account';
      const table = type === 'partner' ? 'partners' : type === 'user' ? 'users' : 'accounts';
      const id = targets[0]!;
      const exists = /^[0-9a-f-]{36}$/i.test(id) && (await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst());
      if (!exists) throw new UsageError(`no ${type} with id ${id}`);
      const { row, token } = await issueToken(db, {
        type,
        kind: 'api',
        name: options.name ?? 'CLI',
        partnerId: options.partner,
        userId: options.user,
        accountId: options.account,
      });
      return { token, api_token: toApiToken(row) };
    }),
  );

program
  .command('demo')
  .description('Create a demo partner, group, account and admin user, and print their tokens')
  .action(async () => run(seedDemo));

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  const known = error instanceof UsageError || error instanceof ConfigError || error instanceof DataDirInUseError;
  process.stderr.write(`consentry: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
