import Database from 'better-sqlite3';
import path from 'node:path';
import { ConfigError, type Config, type Role } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { EventLog } from '../src/ports/event-log.ts';
import type { DocumentStore } from '../src/ports/read-models.ts';
import type { SearchIndex } from '../src/ports/search.ts';
import type { OffLoopOperations } from '../src/http/off-loop.ts';
import type { JobQueue } from '../src/ports/jobs.ts';
import type { RateLimiter } from '../src/ports/rate-limit.ts';
import type { Outbox } from '../src/ports/outbox.ts';
import type { FileStore } from '../src/ports/files.ts';
import type { LeaseStore } from '../src/ports/leases.ts';
import type { KeyRingStore } from '../src/ports/key-ring.ts';
import { SqliteEventLog } from '../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../src/adapters/embedded/sqlite-documents.ts';
import { SqliteJobQueue } from '../src/adapters/embedded/sqlite-jobs.ts';
import { FileOutbox } from '../src/adapters/embedded/file-outbox.ts';
import { QueuedOutbox, type Transports } from '../src/adapters/delivery/queued-outbox.ts';
import { SmtpTransport } from '../src/adapters/delivery/smtp.ts';
import { TwilioSms } from '../src/adapters/delivery/twilio.ts';
import { FolderFileStore } from '../src/adapters/embedded/folder-files.ts';
import { SqliteLeases } from '../src/adapters/embedded/sqlite-leases.ts';
import { openEmbeddedSearch } from './embedded-search.ts';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import { LOT_SEARCH_PARTITION } from '../projections/lot-search/index.ts';
import type { StorageRoom } from '../src/storage-room.ts';
import { makePrivateDataDir, privateDatabaseFile } from '../src/private-files.ts';
import { openKeyRingStore } from './key-ring.ts';

/** The data folder's layout on the embedded default. */
export function dataPaths(dataDir: string) {
  return {
    events: path.join(dataDir, 'events.sqlite'),
    readModels: path.join(dataDir, 'read-models.sqlite'),
    jobs: path.join(dataDir, 'jobs.sqlite'),
    limits: path.join(dataDir, 'limits.sqlite'),
    leases: path.join(dataDir, 'leases.sqlite'),
    search: path.join(dataDir, 'search'),
    searchFile: path.join(dataDir, 'search.sqlite'),
    outbox: path.join(dataDir, 'outbox'),
    files: path.join(dataDir, 'files'),
    secrets: path.join(dataDir, 'secrets'),
    demoCredentials: path.join(dataDir, 'secrets', 'demo-credentials.json'),
  };
}

export interface Engines {
  log: EventLog;
  documents: DocumentStore;
  search: SearchIndex;
  jobs: JobQueue;
  limiter: RateLimiter;
  outbox: Outbox;
  /** The network outbox, when SMTP or Twilio is configured: the worker runs its delivery jobs. */
  delivery: QueuedOutbox | null;
  files: FileStore;
  /** Where the singleton roles are claimed: beside the checkpoints (projector) and the jobs (worker). */
  leases: { projector: LeaseStore; worker: LeaseStore };
  /** The signing keys' ring: where every process of the deployment reads it (app/key-ring.ts). */
  keyRing: KeyRingStore;
  /** True when this process keeps the lot index up to date itself (embedded MiniSearch: each `api` keeps a replica). */
  searchInProcess: boolean;
  /** Operations whose handler runs in the lot index's thread (SEARCH_THREAD with embedded engines), else null. */
  offLoop: OffLoopOperations | null;
  /** Which engine serves each port, for the start-up log (no credentials). */
  describe: Record<string, string>;
  /** Throws when a networked engine this process needs does not answer (PostgreSQL), for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A URL without its credentials, for logs. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

type Closers = Array<() => Promise<void> | void>;

export interface EngineOptions {
  claim?: (leases: Engines['leases']) => Promise<void>;
  /** A tool that does not read the lot index (a document projection's rebuild): the embedded one is not loaded. */
  withoutLotIndex?: boolean;
  /** This process answers searches: the embedded MiniSearch index runs in a thread of its own (SEARCH_THREAD). */
  searchThread?: boolean;
  /** Something this process cannot go on without stopped (the lot index's thread). */
  onFatal?: (reason: string) => void;
  /**
   * The process's record of a full storage: the embedded stores requests write to (the log, the limits, files,
   * jobs added) refuse writes before they start while the data folder has no room; the queues and the lot index
   * tell it of writes that failed for want of room.
   */
  storage?: StorageRoom;
}

/** What each engine's opening reads, and where it notes what it opened (`describe`) and how to close it (`closers`). */
interface Opening {
  config: Config;
  logger: Logger;
  role: Role;
  options: EngineOptions;
  paths: ReturnType<typeof dataPaths>;
  urls: Config['engines'];
  /** The one pool every part on PostgreSQL shares (null: not on PostgreSQL). */
  pgPool: import('pg').Pool | null;
  describe: Record<string, string>;
  /** Run last first by close(). */
  closers: Closers;
}

/**
 * Opens every engine: each port on its production engine when that engine's URL is set, otherwise on the
 * embedded default under DATA_DIR (API.md "Engines and roles"). Production adapters are loaded only when
 * chosen, so the embedded default starts without their client libraries.
 */
export async function openEngines(config: Config, logger: Logger, role: Role, options: EngineOptions = {}): Promise<Engines> {
  const paths = dataPaths(config.dataDir);
  // Its user's alone (0700, files 0600): made so, or tightened, before anything opens in it; or refused.
  const tightened = makePrivateDataDir(config.dataDir);
  if (tightened > 0)
    logger.warn({ dataDir: config.dataDir, tightened }, `DATA_DIR was open to other users: tightened ${tightened} entries`);
  const urls = config.engines;
  const closers: Closers = [];
  const describe: Record<string, string> = {};
  const pgPool = await openPgPool(urls, role, closers);
  const at: Opening = { config, logger, role, options, paths, urls, pgPool, describe, closers };

  const log = await openLog(at);
  const { documents, projectorLeases } = await openReadModels(at);
  const { jobs, limiter, workerLeases } = await openQueues(at);
  // The singleton roles are claimed before the lot index opens: a writable embedded index tidies its folder on
  // opening, which must never happen beside a running projector.
  try {
    await options.claim?.({ projector: projectorLeases, worker: workerLeases });
  } catch (error) {
    for (const close of [...closers].reverse()) await close();
    throw error;
  }
  const { search, searchInProcess, offLoop } = await openLotIndex(at, documents);
  const files = await openFiles(at);
  const { outbox, delivery } = openOutbox(config, jobs, paths.outbox, describe, closers);
  const { store: keyRing, describe: keysAt } = await openKeyRingStore(config, pgPool);
  closers.push(() => keyRing.close());
  describe.keys = config.jwtSecret ? 'JWT_SECRET (one fixed key)' : keysAt;

  let closed = false;
  return {
    log,
    documents,
    search,
    jobs,
    limiter,
    outbox,
    delivery,
    files,
    leases: { projector: projectorLeases, worker: workerLeases },
    keyRing,
    searchInProcess,
    offLoop,
    describe,
    async ping() {
      await pgPool?.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      // Last opened, first closed.
      for (const close of [...closers].reverse()) await close();
    },
  };
}

/** One pool per process for every part on PostgreSQL, ended after them (closers run last first); null without it. */
async function openPgPool(urls: Config['engines'], role: Role, closers: Closers): Promise<import('pg').Pool | null> {
  if (!urls.postgres) return null;
  const { createPool } = await import('../src/adapters/postgres/pool.ts');
  const pool = createPool(urls.postgres, 10, {
    connectTimeoutMs: urls.postgresConnectTimeoutMs,
    queryTimeoutMs: urls.postgresQueryTimeoutMs,
    idleInTransactionTimeoutMs: urls.postgresIdleInTransactionTimeoutMs,
    lockTimeoutMs: urls.postgresLockTimeoutMs,
    // Whose sessions these are, for an operator reading pg_stat_activity and pg_locks.
    applicationName: `bidder-${role}-${process.pid}`,
  });
  closers.push(() => pool.end());
  return pool;
}

/** The event log: EventStoreDB, else PostgreSQL, else the embedded SQLite log. */
async function openLog({ config, urls, pgPool, paths, options, describe, closers }: Opening): Promise<EventLog> {
  const schema = urls.postgresSchema;
  let log: EventLog;
  if (urls.eventStoreDb) {
    const { EsdbEventLog } = await import('../src/adapters/esdb/esdb-event-log.ts');
    log = await EsdbEventLog.connect(urls.eventStoreDb);
    describe.log = `EventStoreDB ${redact(urls.eventStoreDb)}`;
  } else if (pgPool) {
    const { PgEventLog } = await import('../src/adapters/postgres/pg-event-log.ts');
    log = await PgEventLog.open(pgPool, { schema, pollMs: 1000 });
    describe.log = `PostgreSQL ${redact(urls.postgres!)} (schema ${schema})`;
  } else {
    log = new SqliteEventLog(paths.events, { pollMs: 250, room: options.storage, mmapBytes: config.sqliteMmapBytes });
    describe.log = `embedded ${paths.events}`;
  }
  closers.push(() => log.close());
  return log;
}

/** The read models, and the projector's lease beside their checkpoints: MongoDB, else PostgreSQL, else SQLite. */
async function openReadModels({ config, urls, pgPool, paths, logger, describe, closers }: Opening) {
  const schema = urls.postgresSchema;
  let documents: DocumentStore;
  let projectorLeases: LeaseStore;
  if (urls.mongodb) {
    const { MongoDocumentStore } = await import('../src/adapters/mongodb/mongo-documents.ts');
    const { MongoLeases } = await import('../src/adapters/mongodb/mongo-leases.ts');
    const timeoutMs = urls.mongodbTimeoutMs;
    documents = await MongoDocumentStore.connect(urls.mongodb, { timeoutMs, warn: (message) => logger.warn(message) });
    projectorLeases = await MongoLeases.connect(urls.mongodb, { timeoutMs });
    describe.readModels = `MongoDB ${redact(urls.mongodb)}`;
  } else if (pgPool) {
    const { PgDocumentStore } = await import('../src/adapters/postgres/pg-documents.ts');
    const { PgLeases } = await import('../src/adapters/postgres/pg-leases.ts');
    documents = await PgDocumentStore.open(pgPool, { schema });
    projectorLeases = await PgLeases.open(pgPool, { schema });
    describe.readModels = `PostgreSQL ${redact(urls.postgres!)} (schema ${schema})`;
  } else {
    documents = new SqliteDocumentStore(paths.readModels, { mmapBytes: config.sqliteMmapBytes });
    projectorLeases = new SqliteLeases(paths.leases);
    describe.readModels = `embedded ${paths.readModels}`;
  }
  closers.push(
    () => documents.close(),
    () => projectorLeases.close(),
  );
  return { documents, projectorLeases };
}

/** The job queue, the rate limits and the worker's lease: on Redis, else embedded (the lease on PostgreSQL when there). */
async function openQueues({ urls, pgPool, paths, logger, options, describe, closers }: Opening) {
  const schema = urls.postgresSchema;
  let jobs: JobQueue;
  let limiter: RateLimiter;
  let workerLeases: LeaseStore;
  if (urls.redis) {
    const { BullMqJobQueue } = await import('../src/adapters/redis/bullmq-jobs.ts');
    const { RedisRateLimiter } = await import('../src/adapters/redis/redis-rate-limiter.ts');
    const { RedisLeases } = await import('../src/adapters/redis/redis-leases.ts');
    jobs = new BullMqJobQueue({ url: urls.redis, prefix: urls.redisPrefix, logger, storage: options.storage });
    limiter = new RedisRateLimiter({ url: urls.redis, prefix: `${urls.redisPrefix}:rate` });
    workerLeases = new RedisLeases(urls.redis, `${urls.redisPrefix}:lease:`);
    describe.jobs = `BullMQ on ${redact(urls.redis)}`;
    describe.limits = `Redis ${redact(urls.redis)}`;
  } else {
    const jobsDb = new Database(privateDatabaseFile(paths.jobs));
    jobsDb.pragma('journal_mode = WAL');
    jobsDb.pragma('synchronous = NORMAL');
    jobsDb.pragma('busy_timeout = 10000');
    jobs = new SqliteJobQueue({ db: jobsDb, logger, storage: options.storage });
    closers.push(() => void jobsDb.close());
    const { SqliteRateLimiter } = await import('../src/adapters/embedded/sqlite-rate-limiter.ts');
    limiter = new SqliteRateLimiter({ file: paths.limits, room: options.storage });
    workerLeases = pgPool
      ? await (await import('../src/adapters/postgres/pg-leases.ts')).PgLeases.open(pgPool, { schema })
      : new SqliteLeases(paths.leases);
    describe.jobs = `embedded ${paths.jobs}`;
    describe.limits = `embedded ${paths.limits}`;
  }
  // Closed in reverse: the queue (waiting for its running jobs) before its database.
  closers.push(
    async () => void (await jobs.close()),
    () => (limiter as RateLimiter & { close?: () => Promise<void> }).close?.(),
    () => workerLeases.close(),
  );
  return { jobs, limiter, workerLeases };
}

/** The lot index: Typesense, else an empty one for a tool that never reads it, else the embedded MiniSearch index. */
async function openLotIndex(at: Opening, documents: DocumentStore) {
  const { config, logger, role, options, paths, urls, describe, closers } = at;
  let search: SearchIndex;
  let searchInProcess = false;
  let offLoop: OffLoopOperations | null = null;
  if (urls.typesense) {
    search = await openTypesense(at, urls.typesense);
  } else if (options.withoutLotIndex) {
    search = await MiniSearchIndex.open({ dir: null, partitions: LOT_SEARCH_PARTITION });
    describe.search = 'embedded, empty (not read by this tool)';
  } else {
    const onFatal = options.onFatal ?? ((reason: string) => logger.fatal(reason));
    const readModels = documents instanceof SqliteDocumentStore ? paths.readModels : null;
    const embedded = await openEmbeddedSearch(config, logger, role, paths, {
      use: options.searchThread === true,
      onFatal,
      readModels,
      storage: options.storage,
    });
    offLoop = embedded.offLoop;
    search = embedded.search;
    searchInProcess = embedded.inProcess;
    describe.search = embedded.describe;
  }
  closers.push(() => search.close());
  return { search, searchInProcess, offLoop };
}

/** The lot index on Typesense: an `api` with a search-only key never writes it; a refused key names its variable. */
async function openTypesense({ role, urls, describe }: Opening, url: string): Promise<SearchIndex> {
  const { TypesenseIndex, TypesenseKeyRefusedError } = await import('../src/adapters/typesense/typesense-index.ts');
  // An `api` only searches and reads checkpoints: with a search-only key it never writes the index.
  const searchOnly = role === 'api' && urls.typesenseSearchApiKey !== null;
  const keyVariable = searchOnly ? 'TYPESENSE_SEARCH_API_KEY' : 'TYPESENSE_API_KEY';
  const key = (searchOnly ? urls.typesenseSearchApiKey : urls.typesenseApiKey) ?? '';
  let search: SearchIndex;
  try {
    // The process that runs the projections brings the collection to the spec (a changed lot index); the others leave it.
    const schemaOwner = role === 'all' || role === 'projector';
    search = await TypesenseIndex.connect(url, key, { partitions: LOT_SEARCH_PARTITION, readOnly: searchOnly, schemaOwner });
  } catch (error) {
    if (error instanceof TypesenseKeyRefusedError) throw new ConfigError(`${keyVariable}: ${error.message}`);
    throw error;
  }
  describe.search = `Typesense ${redact(url)}${searchOnly ? ' (search-only key)' : ''}`;
  return search;
}

/** Stored files (documents, uploads): on PostgreSQL when there, else a folder under DATA_DIR. */
async function openFiles({ urls, pgPool, paths, options, describe }: Opening): Promise<FileStore> {
  const schema = urls.postgresSchema;
  if (pgPool) {
    const { PgFileStore } = await import('../src/adapters/postgres/pg-files.ts');
    const files = await PgFileStore.open(pgPool, { schema });
    describe.files = `PostgreSQL ${redact(urls.postgres!)} (schema ${schema})`;
    return files;
  }
  describe.files = `folder ${paths.files}`;
  return new FolderFileStore(paths.files, options.storage);
}

/** Mail over SMTP and SMS through Twilio where configured, as background jobs; the outbox files for the rest. */
function openOutbox(
  config: Config,
  jobs: JobQueue,
  dir: string,
  describe: Record<string, string>,
  closers: Closers,
): { outbox: Outbox; delivery: QueuedOutbox | null } {
  const files = new FileOutbox(dir);
  const transports: Transports = {};
  const { smtp, twilio, firstRetryMs } = config.delivery;
  if (smtp) transports.mail = new SmtpTransport(smtp);
  if (twilio) transports.sms = new TwilioSms(twilio);
  for (const transport of Object.values(transports)) closers.push(() => transport.close());
  describe.outbox = (['mail', 'sms'] as const)
    .map((channel) => `${channel}: ${transports[channel]?.describe ?? `folder ${dir}`}`)
    .join(', ');
  if (!smtp && !twilio) return { outbox: files, delivery: null };
  const delivery = new QueuedOutbox(jobs, transports, files, firstRetryMs);
  return { outbox: delivery, delivery };
}
