import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface Config {
  port: number;
  host: string;
  /** Unset: embedded PostgreSQL (PGlite) in dataDir. `memory://`: throwaway embedded database. */
  databaseUrl: string | undefined;
  /** PostgreSQL schema to run in (tests isolate each file in its own schema). */
  databaseSchema: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so that several deployments can share one Redis. */
  redisPrefix: string;
  publicUrl: string;
  smtpUrl: string | undefined;
  logLevel: string;
  rateLimitMax: number;
  rateLimitWindowS: number;
  /** Requests of all the tokens of one user or partner together, per window. */
  ownerRateLimitMax: number;
  /** Live named API tokens one user or partner may hold (account tokens count for their maker). */
  tokensPerOwnerMax: number;
  /** Accounts one user may own (make through the API); partners have no such bound. */
  accountsPerUserMax: number;
  /** Per client IP and per password route (login, sign-up, password change, invitation acceptance). */
  authRateLimitPerMin: number;
  /** Failed logins per email address from one client IP per hour. */
  loginFailuresPerIpPerHour: number;
  /** Failed logins per email address per hour from every IP, past which only IPs without failures may try. */
  loginEmailRateLimitPerHour: number;
  widgetRateLimitPerMin: number;
  signupEnabled: boolean;
  /**
   * Whose `X-Forwarded-For` entries to believe, read from the right (the entry the nearest proxy
   * appended) until one not trusted: that one is the client. `false`: none (the socket's address);
   * a number: that many proxies in front; a list: the proxies at these addresses or ranges; `true`:
   * every entry, so the client picks its own address (kept for compatibility, warned at start).
   */
  trustProxy: boolean | number | string[];
  bodyLimitBytes: number;
  /** Consents waiting for their batch before new ones are refused with 503. */
  consentQueueMax: number;
  /** Storage items waiting for the AI in memory; past it they wait in the database (`processing`). */
  aiQueueMax: number;
  /** How often pageviews and visitors counted in memory are written to the database. */
  visitFlushIntervalMs: number;
  /** How often the retention job removes consents older than their account's retention; 0: never. */
  retentionIntervalS: number;
  /** OpenAI-compatible endpoint of a language model for descriptions and translations; unset: offline. */
  llmUrl: string | undefined;
  llmModel: string;
  llmApiKey: string | undefined;
  llmTimeoutMs: number;
  /** The built dashboard served at `/` (`npm run build` writes it). */
  webDir: string;
  /** Set: GET /metrics on the API port, for this bearer token only. */
  metricsToken: string | undefined;
  /** Set: metrics on a port of their own (METRICS_HOST, loopback by default), without a token. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** The Chromium the scanner drives. */
  scanChromiumPath: string;
  /** Scans may reach loopback, private and link-local addresses (never in production). */
  scanAllowPrivateNetworks: boolean;
  /** Scans (browsers) this instance runs at once; 0: it runs none. */
  scanConcurrency: number;
  scanDailyLimit: number;
  /** Scans queued or running at once for the accounts of one owner (the user or partner behind them). */
  scansPerOwnerMax: number;
  scanPageTimeoutMs: number;
  /** How long a running scan's claim holds without renewal before it counts as abandoned. */
  scanLeaseS: number;
  /**
   * Request header in which the CDN or proxy in front names the visitor's country (`cf-ipcountry`,
   * `cloudfront-viewer-country`, `x-vercel-ip-country`); unset: no header is believed. Lower case.
   */
  geoCountryHeader: string | undefined;
  /** Request header naming the visitor's subdivision (`CA` or `US-CA`), believed with the country header only. */
  geoRegionHeader: string | undefined;
  /**
   * mmdb files to locate visitors by (MaxMind GeoIP2/GeoLite2 or DB-IP, Country or City; DB-IP's
   * IPv4 and IPv6 files as two); unset: the DB-IP Lite database of the npm package.
   */
  geoipFiles: string[] | undefined;
  /** No GeoIP database: visitors are located by the trusted headers alone, or not at all. */
  geoipDisabled: boolean;
  /** The IAB's Global Vendor List to load at start: a `vendor-list.json`, or a folder with it and `purposes-xx.json`. */
  tcfGvlFile: string | undefined;
  /** The address of a `vendor-list.json` to fetch at start and every `tcfGvlRefreshS` (translations beside it). */
  tcfGvlUrl: string | undefined;
  tcfGvlRefreshS: number;
  /** The languages whose `purposes-xx.json` are fetched beside TCF_GVL_URL's vendor list. */
  tcfGvlLanguages: string[];
  tcfGvlTimeoutMs: number;
}

/**
 * The languages the IAB translates the purposes into (as its files name them), fetched by default:
 * the EEA's and a few more spoken by the publishers' visitors.
 */
export const DEFAULT_TCF_GVL_LANGUAGES = [
  'bg', 'ca', 'cs', 'da', 'de', 'el', 'es', 'et', 'eu', 'fi', 'fr', 'gl', 'hr', 'hu', 'it', 'ja', 'lt', 'lv', 'mt', 'nl', 'no',
  'pl', 'pt-br', 'pt-pt', 'ro', 'ru', 'sk', 'sl', 'sr-cyrl', 'sr-latn', 'sv', 'tr', 'uk', 'zh',
];

/** TCF_GVL_LANGUAGES: language codes as the IAB's file names write them, separated by commas. */
function tcfGvlLanguages(env: Env): string[] {
  const raw = optional(env, 'TCF_GVL_LANGUAGES');
  if (raw === undefined) return [...DEFAULT_TCF_GVL_LANGUAGES];
  const codes = raw.split(',').map((code) => code.trim().toLowerCase()).filter((code) => code !== '');
  const wrong = codes.filter((code) => !/^[a-z]{2,3}(-[a-z0-9]{2,8})?$/.test(code));
  if (wrong.length > 0 || codes.length > 100) {
    throw new ConfigError(`TCF_GVL_LANGUAGES must be at most 100 language codes such as de,fr,pt-pt separated by commas (got "${raw}")`);
  }
  return codes;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  // Blank is unset, as for every other variable; `Number` would read it, and `0x10` or `1e3`, as a number.
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function optional(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

/** A guessable token would expose the metrics: at least 16 characters. */
function metricsToken(env: Env): string | undefined {
  const token = optional(env, 'METRICS_TOKEN');
  if (token !== undefined && token.length < 16) throw new ConfigError('METRICS_TOKEN must have at least 16 characters');
  return token;
}

/** proxy-addr's names for ranges, as Fastify's `trustProxy` takes them. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address, an address with a prefix length (`10.0.0.0/8`, `fd00::/8`), or one of proxy-addr's range names. */
function proxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * TRUST_PROXY: `true`/`false`, a hop count, or a comma-separated list of the proxies' addresses and
 * ranges. A number used to read as `true` (`1`); it now counts proxies, which is what `1` means
 * behind one balancer.
 */
function trustProxy(env: Env): boolean | number | string[] {
  const raw = optional(env, 'TRUST_PROXY');
  if (raw === undefined) return false;
  const word = raw.toLowerCase();
  if (['true', 'yes'].includes(word)) return true;
  if (['false', 'no'].includes(word)) return false;
  if (/^\d+$/.test(raw)) {
    const hops = integer(env, 'TRUST_PROXY', 0, 0, 100);
    return hops === 0 ? false : hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const wrong = entries.filter((entry) => !proxyAddress(entry));
  if (wrong.length > 0) {
    throw new ConfigError(
      `TRUST_PROXY must be true, false, a number of proxies, or a comma-separated list of proxy addresses and ranges (got ${wrong.map((entry) => `"${entry}"`).join(', ')})`,
    );
  }
  return entries;
}

/** A header's name as HTTP writes it (a token), in lower case as Node gives headers. */
function headerName(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(raw)) throw new ConfigError(`${name} must be a header name such as cf-ipcountry (got "${raw}")`);
  return raw.toLowerCase();
}

/** GEOIP_FILE: one path, or several separated by commas (DB-IP ships IPv4 and IPv6 in two files). */
function geoipFiles(env: Env): string[] | undefined {
  const raw = optional(env, 'GEOIP_FILE');
  if (raw === undefined) return undefined;
  const paths = raw.split(',').map((path) => path.trim());
  if (paths.some((path) => path === '')) throw new ConfigError(`GEOIP_FILE must be a path, or paths separated by commas (got "${raw}")`);
  if (boolean(env, 'GEOIP_DISABLED', false)) throw new ConfigError('GEOIP_FILE and GEOIP_DISABLED=true cannot both be set');
  return paths;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads the environment once; every other module receives the typed result. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const metricsPort = optional(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535);
  // Port 0 asks the system for a free port each time: two zeros never collide; nor do one port's
  // two addresses (HOST=10.0.0.5 and METRICS_HOST=127.0.0.1), unless one of them is every address.
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  const metricsHost = optional(env, 'METRICS_HOST') ?? '127.0.0.1';
  const everyAddress = (address: string) => ['0.0.0.0', '::', '[::]'].includes(address);
  const sameAddress = host === metricsHost || everyAddress(host) || everyAddress(metricsHost);
  const geoCountryHeader = headerName(env, 'GEO_COUNTRY_HEADER');
  const geoRegionHeader = headerName(env, 'GEO_REGION_HEADER');
  if (geoRegionHeader !== undefined && geoCountryHeader === undefined) {
    throw new ConfigError('GEO_REGION_HEADER is believed only with GEO_COUNTRY_HEADER: set both');
  }
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port && sameAddress) {
    throw new ConfigError(`METRICS_PORT must differ from PORT (both are ${port}) on the same address: metrics are served on a port of their own`);
  }
  return {
    port,
    host,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:', 'memory:']),
    databaseSchema: optional(env, 'DATABASE_SCHEMA'),
    dataDir: optional(env, 'DATA_DIR') ?? './data',
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: optional(env, 'REDIS_PREFIX') ?? 'consentry:',
    publicUrl: (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    logLevel,
    rateLimitMax: integer(env, 'RATE_LIMIT_MAX', 300, 1, 1_000_000_000),
    rateLimitWindowS: integer(env, 'RATE_LIMIT_WINDOW_S', 300, 1, 86_400),
    ownerRateLimitMax: integer(env, 'OWNER_RATE_LIMIT_MAX', 3 * integer(env, 'RATE_LIMIT_MAX', 300, 1, 1_000_000_000), 1, 3_000_000_000),
    tokensPerOwnerMax: integer(env, 'TOKENS_PER_OWNER_MAX', 50, 1, 100_000),
    accountsPerUserMax: integer(env, 'ACCOUNTS_PER_USER_MAX', 20, 1, 100_000),
    authRateLimitPerMin: integer(env, 'AUTH_RATE_LIMIT_PER_MIN', 10, 1, 1_000_000_000),
    loginFailuresPerIpPerHour: integer(env, 'LOGIN_FAILURES_PER_IP_PER_HOUR', 10, 1, 1_000_000_000),
    loginEmailRateLimitPerHour: integer(env, 'LOGIN_EMAIL_RATE_LIMIT_PER_HOUR', 30, 1, 1_000_000_000),
    widgetRateLimitPerMin: integer(env, 'WIDGET_RATE_LIMIT_PER_MIN', 120, 1, 1_000_000_000),
    // On, as the API contract says; off, users come only from the CLI or an invitation.
    signupEnabled: boolean(env, 'SIGNUP_ENABLED', true),
    trustProxy: trustProxy(env),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    consentQueueMax: integer(env, 'CONSENT_QUEUE_MAX', 10_000, 1, 1_000_000),
    aiQueueMax: integer(env, 'AI_QUEUE_MAX', 10_000, 1, 1_000_000),
    visitFlushIntervalMs: integer(env, 'VISIT_FLUSH_INTERVAL_MS', 5_000, 100, 600_000),
    retentionIntervalS: integer(env, 'CONSENT_RETENTION_INTERVAL_S', 3_600, 0, 604_800),
    llmUrl: url(env, 'LLM_URL', ['http:', 'https:']),
    llmModel: optional(env, 'LLM_MODEL') ?? 'gpt-4o-mini',
    llmApiKey: optional(env, 'LLM_API_KEY'),
    llmTimeoutMs: integer(env, 'LLM_TIMEOUT_MS', 15_000, 100, 600_000),
    // Beside this file's folder in both layouts: src/config.ts (tsx) and dist/server.js (bundled).
    webDir: optional(env, 'WEB_DIR') ?? fileURLToPath(new URL('../dist/web', import.meta.url)),
    metricsToken: metricsToken(env),
    metricsPort,
    metricsHost,
    scanChromiumPath: optional(env, 'SCAN_CHROMIUM_PATH') ?? '/usr/bin/chromium',
    scanAllowPrivateNetworks: boolean(env, 'SCAN_ALLOW_PRIVATE_NETWORKS', false),
    scanConcurrency: integer(env, 'SCAN_CONCURRENCY', 1, 0, 16),
    scanDailyLimit: integer(env, 'SCAN_DAILY_LIMIT', 10, 1, 1_000_000),
    scansPerOwnerMax: integer(env, 'SCANS_PER_OWNER_MAX', 20, 1, 100_000),
    scanPageTimeoutMs: integer(env, 'SCAN_PAGE_TIMEOUT_MS', 15_000, 1_000, 120_000),
    scanLeaseS: integer(env, 'SCAN_LEASE_S', 30, 3, 3_600),
    geoCountryHeader,
    geoRegionHeader,
    geoipFiles: geoipFiles(env),
    geoipDisabled: boolean(env, 'GEOIP_DISABLED', false),
    tcfGvlFile: optional(env, 'TCF_GVL_FILE'),
    tcfGvlUrl: url(env, 'TCF_GVL_URL', ['http:', 'https:']),
    // Weekly: the IAB publishes a new version every week.
    tcfGvlRefreshS: integer(env, 'TCF_GVL_REFRESH_S', 604_800, 60, 2_678_400),
    tcfGvlLanguages: tcfGvlLanguages(env),
    tcfGvlTimeoutMs: integer(env, 'TCF_GVL_TIMEOUT_MS', 30_000, 1_000, 600_000),
  };
}
