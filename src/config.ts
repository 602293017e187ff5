import os from 'node:os';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseMailbox, type Mailbox } from './text/mailbox.ts';
import { isPublishedSecret } from './published-secrets.ts';
import { base64urlBytes, publicKeyOf, type VapidKeys } from './security/vapid.ts';

/** A setting that cannot be used: the start stops with its message, one line that names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** DEMO_WEB_IMAGE_ORIGINS: `https://images.example.com, https://cdn.example.com`, each an http(s) origin and nothing more. */
function imageOrigins(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    const url = URL.canParse(origin) ? new URL(origin) : null;
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin.replace(/\/$/, ''))
      throw new ConfigError(`DEMO_WEB_IMAGE_ORIGINS: ${origin} is no origin (write it as https://images.example.com)`);
  }
  return origins.map((o) => new URL(o).origin);
}

export type Role = 'all' | 'api' | 'projector' | 'worker';
export const ROLES: readonly Role[] = ['all', 'api', 'projector', 'worker'];

/** Where each engine runs: null = the embedded default under DATA_DIR (API.md "Engines and roles"). */
export interface EngineUrls {
  eventStoreDb: string | null;
  mongodb: string | null;
  typesense: string | null;
  typesenseApiKey: string | null;
  /** A search-only key (documents:search and documents:get) for the `api` role, which never writes the index. */
  typesenseSearchApiKey: string | null;
  redis: string | null;
  /** Prefix of every Redis key (jobs, limits, leases): several deployments can share one Redis. */
  redisPrefix: string;
  /** PostgreSQL: the event log, read models, files and leases, each unless EVENTSTOREDB_URL or MONGODB_URL claims its part. */
  postgres: string | null;
  /** The schema of its tables (POSTGRES_SCHEMA, default `bidder`): several deployments can share one database. */
  postgresSchema: string;
  /** Bounded waits on PostgreSQL (ms): a connection, or a free one of the pool (POSTGRES_CONNECT_TIMEOUT_MS, default 2000)... */
  postgresConnectTimeoutMs: number;
  /** ...and one statement (POSTGRES_QUERY_TIMEOUT_MS, default 5000): past them, a request answers 503. */
  postgresQueryTimeoutMs: number;
  /** A transaction idle that long is ended by the server, its locks with it (POSTGRES_IDLE_IN_TRANSACTION_TIMEOUT_MS, 3000)... */
  postgresIdleInTransactionTimeoutMs: number;
  /** ...and a statement waits that long for a lock (POSTGRES_LOCK_TIMEOUT_MS, 4000); 0: the server's own setting. */
  postgresLockTimeoutMs: number;
  /** One MongoDB operation (MONGODB_TIMEOUT_MS, default 5000; 0: no bound): past it, a request answers 503. */
  mongodbTimeoutMs: number;
}

export interface Config {
  /** What this process runs: API, projectors, job worker, or all three (the default). */
  role: Role;
  /**
   * How many processes serve the API on PORT (API_PROCESSES, `auto` = the cores available); ROLE=all only, 1 for
   * the other roles. From 2 on, `npm start` is a cluster primary running the projectors and jobs (app/main.ts).
   */
  apiProcesses: number;
  engines: EngineUrls;
  /** GET /metrics: 'on' (served by the app), 'off', or a port of its own (e.g. bound to an internal network). */
  metrics: 'on' | 'off' | { port: number; host: string };
  port: number;
  host: string;
  dataDir: string;
  logLevel: string;
  /** JWT_SECRET: one fixed signing key (and the anchor); when unset, the key ring of app/key-ring.ts. */
  jwtSecret: string | null;
  demoApiKey: string | null;
  demoMemberPassword: string | null;
  /** Seed the demo data into an empty DATA_DIR (and serve the reference bidder front end at /demo/). */
  seedDemo: boolean;
  /** Where the front end at /demo/ calls the API (DEMO_WEB_API_URL; another origin); null: its own origin. */
  demoWebApiUrl: string | null;
  /** Origins the front end at /demo/ loads lot images from (DEMO_WEB_IMAGE_ORIGINS, comma-separated); none: links only. */
  demoWebImageOrigins: string[];
  readYourWritesTimeoutMs: number;
  searchFlushIntervalMs: number;
  /**
   * The embedded lot index (EMBEDDED_SEARCH): `minisearch` (the default), in each process's memory, postings in
   * typed arrays; or `fts5`, SQLite's FTS5 in one file every process shares: less memory and a faster start,
   * searches about five times the CPU (docs/performance.md).
   */
  embeddedSearch: 'fts5' | 'minisearch';
  /** The embedded MiniSearch index of a process that answers searches runs in a worker thread (SEARCH_THREAD, default true). */
  searchThread: boolean;
  /**
   * How much of each embedded SQLite file (the log, the read models) is read through a memory map
   * (SQLITE_MMAP_MB, default 1024; 0: every page read is a system call, as before). SQLite caps it near 2 GB.
   */
  sqliteMmapBytes: number;
  /** The EU's VIES service for VAT checks; null: format and checksum only (jsvat). */
  viesUrl: string | null;
  viesTimeoutMs: number;
  /** After SIGTERM or SIGINT: how long requests in flight and running jobs may take before they are abandoned. */
  shutdownTimeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE=true: webhooks may use plain http and any address (development and tests only). */
  webhookAllowPrivate: boolean;
  http: HttpConfig;
  delivery: DeliveryConfig;
  push: PushConfig;
}

/** Web Push (PUSH.md "Keys and settings"). */
export interface PushConfig {
  /** VAPID_PRIVATE_KEY and VAPID_PUBLIC_KEY; null: derived from the key ring's anchor (src/security/vapid.ts). */
  vapid: VapidKeys | null;
  /** VAPID_SUBJECT (a `mailto:` or `https:` URL); null: `mailto:` the house's contact address. */
  subject: string | null;
  /** PUSH_ENDPOINT_HOSTS: the hosts (and their subdomains) the service POSTs push messages to. */
  endpointHosts: string[];
  /** PUSH_ALLOW_PRIVATE=true (tests only): plain http, any port, loopback and private addresses, on the listed hosts still. */
  allowPrivate: boolean;
}

/** The public push services: Chrome's and Edge's (FCM), Firefox's, Safari's, and Windows'. */
export const DEFAULT_PUSH_HOSTS = ['fcm.googleapis.com', 'updates.push.services.mozilla.com', 'push.apple.com', 'notify.windows.com'];

/** Where mail and SMS go (PRODUCTION.md); null: the outbox files under DATA_DIR (the embedded default). */
export interface DeliveryConfig {
  /** SMTP_URL and MAIL_FROM. */
  smtp: SmtpConfig | null;
  /** TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM, TWILIO_API_URL. */
  twilio: { accountSid: string; authToken: string; from: string; apiUrl: string } | null;
  /** DELIVERY_FIRST_RETRY_MS: the wait before the first retry of a temporary failure (default 15 s), doubling after. */
  firstRetryMs: number;
}

export interface SmtpConfig {
  url: string;
  from: Mailbox;
  /**
   * STARTTLS before anything else is sent, or no mail: on `smtp://` to any host but a loopback one, unless
   * SMTP_URL says `?requireTLS=false` (`smtps://` is TLS from the first byte).
   */
  requireTLS: boolean;
  /** What the process that sends logs as warnings at its start: mail that may go in the clear, or unverified. */
  warnings: string[];
}

const SMTP_URL_FORM = 'SMTP_URL must be smtp://[user:password@]host:port or smtps://…';

/** localhost, 127.0.0.0/8 and ::1: mail that never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A true/false setting in SMTP_URL's query (nodemailer reads it there too), or null when absent. */
function smtpFlag(url: URL, name: string): boolean | null {
  const value = url.searchParams.get(name);
  if (value === null) return null;
  if (value !== 'true' && value !== 'false') throw new ConfigError(`SMTP_URL: ${name} must be true or false`);
  return value === 'true';
}

function smtp(env: NodeJS.ProcessEnv): DeliveryConfig['smtp'] {
  if (!env.SMTP_URL) {
    if (env.MAIL_FROM) throw new ConfigError('MAIL_FROM is set without SMTP_URL');
    return null;
  }
  let url: URL;
  try {
    url = new URL(env.SMTP_URL);
  } catch {
    throw new ConfigError(SMTP_URL_FORM);
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) throw new ConfigError(SMTP_URL_FORM);
  if (!env.MAIL_FROM) throw new ConfigError('MAIL_FROM is required with SMTP_URL (Name <address>)');
  const from = parseMailbox(env.MAIL_FROM);
  if (!from) throw new ConfigError('MAIL_FROM must be Name <address> or an address');
  const loopback = isLoopbackHost(url.hostname);
  const optedIn = smtpFlag(url, 'requireTLS');
  const verify = smtpFlag(url, 'tls.rejectUnauthorized');
  const requireTLS = url.protocol === 'smtp:' && (optedIn ?? !loopback);
  const warnings: string[] = [];
  if (url.protocol === 'smtp:' && !requireTLS && !loopback)
    warnings.push(`mail to ${url.host} may be sent unencrypted, with the SMTP password: SMTP_URL says requireTLS=false`);
  if (verify === false) warnings.push(`the certificate of ${url.host} is not verified: SMTP_URL says tls.rejectUnauthorized=false`);
  return { url: env.SMTP_URL, from, requireTLS, warnings };
}

function twilio(env: NodeJS.ProcessEnv): DeliveryConfig['twilio'] {
  const names = ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const;
  const set = names.filter((name) => env[name]);
  if (set.length === 0) {
    if (env.TWILIO_API_URL) throw new ConfigError('TWILIO_API_URL is set without TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM');
    return null;
  }
  const missing = names.find((name) => !env[name]);
  if (missing) throw new ConfigError(`${missing} is required with ${set.join(', ')}`);
  const apiUrl = env.TWILIO_API_URL || 'https://api.twilio.com';
  let protocol = '';
  try {
    protocol = new URL(apiUrl).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'https:' && protocol !== 'http:') throw new ConfigError('TWILIO_API_URL must be an http(s) URL');
  return { accountSid: env.TWILIO_ACCOUNT_SID!, authToken: env.TWILIO_AUTH_TOKEN!, from: env.TWILIO_FROM!, apiUrl };
}

function postgresUrl(value: string | undefined): string | null {
  if (!value) return null;
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:')
    throw new ConfigError('POSTGRES_URL must be postgres://[user:password@]host:port/database');
  return value;
}

function postgresSchema(value: string | undefined): string {
  const schema = value || 'bidder';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new ConfigError('POSTGRES_SCHEMA must be lower-case letters, digits and _ (at most 63)');
  return schema;
}

/** VAPID_PRIVATE_KEY and VAPID_PUBLIC_KEY: both or neither, a P-256 pair in base64url; the values are never shown. */
function vapidKeys(env: NodeJS.ProcessEnv): VapidKeys | null {
  const { VAPID_PRIVATE_KEY: privateKey, VAPID_PUBLIC_KEY: publicKey } = env;
  if (!privateKey && !publicKey) return null;
  if (!privateKey) throw new ConfigError('VAPID_PUBLIC_KEY is set without VAPID_PRIVATE_KEY');
  if (!publicKey) throw new ConfigError('VAPID_PRIVATE_KEY is set without VAPID_PUBLIC_KEY');
  const scalar = base64urlBytes(privateKey);
  const derived = scalar && publicKeyOf(scalar);
  if (!derived)
    throw new ConfigError('VAPID_PRIVATE_KEY must be a P-256 private key: 32 bytes in base64url (npx web-push generate-vapid-keys)');
  const point = base64urlBytes(publicKey);
  if (!point || point.length !== 65) throw new ConfigError('VAPID_PUBLIC_KEY must be an uncompressed P-256 point: 65 bytes in base64url');
  if (!point.equals(derived)) throw new ConfigError('VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY');
  return { privateKey, publicKey };
}

/** VAPID_SUBJECT: `mailto:` an address, or an `https:` URL (RFC 8292 §2.1). */
function vapidSubject(value: string | undefined): string | null {
  if (!value) return null;
  if (/^mailto:[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return value;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (url?.protocol === 'https:' && url.hostname && !url.username && !url.password) return value;
  throw new ConfigError('VAPID_SUBJECT must be mailto:address or an https:// URL');
}

const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** PUSH_ENDPOINT_HOSTS: comma-separated host names (each also allows its subdomains) or IP addresses; unset: the public push services. */
function pushHosts(value: string | undefined): string[] {
  if (!value || value.trim() === '') return DEFAULT_PUSH_HOSTS;
  return value.split(',').flatMap((entry) => {
    const host = entry
      .trim()
      .toLowerCase()
      .replace(/^\*?\./, '')
      .replace(/^\[|\]$/g, '');
    if (host === '') return [];
    if (!HOST_NAME.test(host) && !isIP(host))
      throw new ConfigError(
        `PUSH_ENDPOINT_HOSTS must be host names or addresses separated by commas (got ${JSON.stringify(entry.trim())})`,
      );
    return [host];
  });
}

function push(env: NodeJS.ProcessEnv): PushConfig {
  return {
    vapid: vapidKeys(env),
    subject: vapidSubject(env.VAPID_SUBJECT),
    endpointHosts: pushHosts(env.PUSH_ENDPOINT_HOSTS),
    allowPrivate: env.PUSH_ALLOW_PRIVATE === 'true',
  };
}

function delivery(env: NodeJS.ProcessEnv): DeliveryConfig {
  const firstRetryMs = int(env.DELIVERY_FIRST_RETRY_MS, 15_000, 'DELIVERY_FIRST_RETRY_MS');
  if (firstRetryMs < 1 || firstRetryMs > 30_000) throw new ConfigError('DELIVERY_FIRST_RETRY_MS must be 1 to 30000');
  return { smtp: smtp(env), twilio: twilio(env), firstRetryMs };
}

export interface HttpConfig {
  /** Origins allowed to call from browsers; ['*'] = any. */
  corsOrigins: string[];
  /** Behind a reverse proxy: the client address comes from X-Forwarded-For. */
  trustProxy: boolean;
  /** Reuse serialised catalogue answers while their projections stand still. */
  responseCache: boolean;
  /**
   * /readyz answers 200 while every projection is at most this many seconds behind the log (READY_MAX_LAG_SECONDS,
   * default 10); the lot index further behind answers searches 503 and leaves the process ready (`degraded`).
   */
  readyMaxLagSeconds?: number;
  /**
   * OPERATOR_TOKEN: its bearer reads /readyz's details and /metrics on PORT (src/http/ops-routes.ts); null: no one
   * does there (METRICS_PORT serves them).
   */
  operatorToken?: string | null;
  /**
   * Where clients reach the API (PUBLIC_URL, e.g. `https://api.example.com`, without a trailing slash): the stream
   * tickets' URLs start with it, and the links mails carry (unsubscribe, an invoice's PDF). Null: they are paths
   * (`/v1/...`), never built from the request's Host.
   */
  publicUrl?: string | null;
}

/**
 * A secret setting: null when unset or empty; refused, with one line that names it and never shows it, when it is
 * shorter than `minBytes` or one of the examples printed in this service's own files (src/published-secrets.ts).
 */
export function secret(env: NodeJS.ProcessEnv, name: string, minBytes: number): string | null {
  const value = env[name];
  if (!value) return null;
  if (isPublishedSecret(value))
    throw new ConfigError(`${name} is an example printed in this service's docs or compose files: make your own (openssl rand -base64 48)`);
  if (Buffer.byteLength(value, 'utf8') < minBytes)
    throw new ConfigError(`${name} must be at least ${minBytes} bytes (openssl rand -base64 48 makes one)`);
  return value;
}

/** PUBLIC_URL: an absolute http(s) URL with no user, query or fragment; kept without its trailing slash. */
function publicUrl(value: string | undefined): string | null {
  if (!value) return null;
  const refused = new ConfigError(
    'PUBLIC_URL must be the absolute http(s) URL clients reach the API at, without user, query or fragment (e.g. https://api.example.com)',
  );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refused;
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    value.includes('?') ||
    value.includes('#')
  )
    throw refused;
  return url.href.replace(/\/+$/, '');
}

function embeddedSearch(value: string | undefined): Config['embeddedSearch'] {
  const v = value || 'minisearch';
  if (v !== 'fts5' && v !== 'minisearch')
    throw new ConfigError(`EMBEDDED_SEARCH must be fts5 or minisearch (got ${JSON.stringify(value)})`);
  return v;
}

/** A whole number from 0 (up to `max`) in a variable, else its default; anything else stops the start naming the variable. */
function int(value: string | undefined, fallback: number, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined || value === '') return fallback;
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n > max)
    throw new ConfigError(
      `${name} must be a non-negative integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''} (got ${JSON.stringify(value)})`,
    );
  return n;
}

/**
 * The demo's credentials from the environment, checked as the seed's intake checks them (so a short one stops
 * the start with one line rather than a failed seed); not read with SEED_DEMO=false.
 */
function demoSecrets(env: NodeJS.ProcessEnv): void {
  const bounds: Array<[string, number, RegExp | null]> = [
    ['DEMO_API_KEY', 16, null],
    ['DEMO_CLIENT_SECRET', 16, null],
    ['DEMO_MEMBER_PASSWORD', 8, null],
    ['DEMO_BACKOFFICE_KEY', 24, /^[A-Za-z0-9._~+/=-]*$/],
    ['DEMO2_BACKOFFICE_KEY', 24, /^[A-Za-z0-9._~+/=-]*$/],
  ];
  for (const [name, min, pattern] of bounds) {
    const value = env[name];
    if (!value) continue;
    if (value.length < min) throw new ConfigError(`${name} must be at least ${min} characters`);
    if (value.length > 200) throw new ConfigError(`${name} must be at most 200 characters`);
    if (pattern && !pattern.test(value)) throw new ConfigError(`${name} must be letters, digits and ._~+/=- only`);
  }
}

function role(value: string | undefined): Role {
  const r = (value || 'all') as Role;
  if (!ROLES.includes(r)) throw new ConfigError(`ROLE must be one of ${ROLES.join(', ')} (got ${JSON.stringify(value)})`);
  return r;
}

/** API_PROCESSES: `auto` (the default: one per core available) or an integer ≥ 1; read for ROLE=all only. */
function apiProcesses(value: string | undefined, r: Role): number {
  if (r !== 'all') return 1;
  if (value === undefined || value === '' || value === 'auto') return os.availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`API_PROCESSES must be auto or an integer >= 1 (got ${JSON.stringify(value)})`);
  return n;
}

function metrics(env: NodeJS.ProcessEnv): Config['metrics'] {
  if (env.METRICS === 'off' || env.METRICS === 'false') return 'off';
  if (env.METRICS_PORT) return { port: int(env.METRICS_PORT, 9464, 'METRICS_PORT', 65_535), host: env.METRICS_HOST ?? '127.0.0.1' };
  return 'on';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const r = role(env.ROLE);
  const seedDemo = env.SEED_DEMO !== 'false';
  if (seedDemo) demoSecrets(env);
  if (env.TYPESENSE_URL && !env.TYPESENSE_API_KEY && !(r === 'api' && env.TYPESENSE_SEARCH_API_KEY)) {
    throw new ConfigError(`TYPESENSE_URL is set without TYPESENSE_API_KEY${r === 'api' ? ' or TYPESENSE_SEARCH_API_KEY' : ''}`);
  }
  return {
    role: r,
    apiProcesses: apiProcesses(env.API_PROCESSES, r),
    engines: {
      eventStoreDb: env.EVENTSTOREDB_URL || null,
      mongodb: env.MONGODB_URL || null,
      typesense: env.TYPESENSE_URL || null,
      typesenseApiKey: env.TYPESENSE_API_KEY || null,
      typesenseSearchApiKey: env.TYPESENSE_SEARCH_API_KEY || null,
      redis: env.REDIS_URL || null,
      redisPrefix: env.REDIS_PREFIX || 'bidder',
      postgres: postgresUrl(env.POSTGRES_URL),
      postgresSchema: postgresSchema(env.POSTGRES_SCHEMA),
      postgresConnectTimeoutMs: int(env.POSTGRES_CONNECT_TIMEOUT_MS, 2000, 'POSTGRES_CONNECT_TIMEOUT_MS'),
      postgresQueryTimeoutMs: int(env.POSTGRES_QUERY_TIMEOUT_MS, 5000, 'POSTGRES_QUERY_TIMEOUT_MS'),
      postgresIdleInTransactionTimeoutMs: int(env.POSTGRES_IDLE_IN_TRANSACTION_TIMEOUT_MS, 3000, 'POSTGRES_IDLE_IN_TRANSACTION_TIMEOUT_MS'),
      postgresLockTimeoutMs: int(env.POSTGRES_LOCK_TIMEOUT_MS, 4000, 'POSTGRES_LOCK_TIMEOUT_MS'),
      mongodbTimeoutMs: int(env.MONGODB_TIMEOUT_MS, 5000, 'MONGODB_TIMEOUT_MS'),
    },
    metrics: metrics(env),
    port: int(env.PORT, 3000, 'PORT', 65_535),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    logLevel: env.LOG_LEVEL ?? 'info',
    jwtSecret: secret(env, 'JWT_SECRET', 32),
    demoApiKey: env.DEMO_API_KEY || null,
    demoMemberPassword: env.DEMO_MEMBER_PASSWORD || null,
    seedDemo,
    demoWebApiUrl: env.DEMO_WEB_API_URL || null,
    demoWebImageOrigins: imageOrigins(env.DEMO_WEB_IMAGE_ORIGINS),
    readYourWritesTimeoutMs: int(env.READ_YOUR_WRITES_TIMEOUT_MS, 5000, 'READ_YOUR_WRITES_TIMEOUT_MS'),
    searchFlushIntervalMs: int(env.SEARCH_FLUSH_INTERVAL_MS, 30000, 'SEARCH_FLUSH_INTERVAL_MS'),
    embeddedSearch: embeddedSearch(env.EMBEDDED_SEARCH),
    searchThread: env.SEARCH_THREAD !== 'false',
    sqliteMmapBytes: int(env.SQLITE_MMAP_MB, 1024, 'SQLITE_MMAP_MB', 2047) * 2 ** 20,
    viesUrl: env.VIES_URL || null,
    viesTimeoutMs: int(env.VIES_TIMEOUT_MS, 10000, 'VIES_TIMEOUT_MS'),
    shutdownTimeoutMs: int(env.SHUTDOWN_TIMEOUT_MS, 10000, 'SHUTDOWN_TIMEOUT_MS'),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === 'true',
    http: {
      corsOrigins: (env.CORS_ORIGINS ?? '*')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      trustProxy: env.TRUST_PROXY === 'true',
      responseCache: env.RESPONSE_CACHE !== 'false',
      readyMaxLagSeconds: int(env.READY_MAX_LAG_SECONDS, 10, 'READY_MAX_LAG_SECONDS'),
      operatorToken: secret(env, 'OPERATOR_TOKEN', 32),
      publicUrl: publicUrl(env.PUBLIC_URL),
    },
    delivery: delivery(env),
    push: push(env),
  };
}
