import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { Services } from './services.ts';
import { SqliteEventLog } from './adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from './adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from './adapters/embedded/minisearch-index.ts';
import { SqliteJobQueue } from './adapters/embedded/sqlite-jobs.ts';
import { FileOutbox } from './adapters/embedded/file-outbox.ts';
import { FolderFileStore } from './adapters/embedded/folder-files.ts';
import { MemoryRateLimiter } from './adapters/embedded/memory-rate-limiter.ts';
import { TokenService } from './security/tokens.ts';
import { ProjectorRuntime } from './projector/runtime.ts';
import { allProjections, CATALOGUE_PROJECTIONS } from './projections.ts';
import { GeneratedFiles } from './generated-files.ts';
import { OneTimeKeys, oneTimeKeySecret } from './security/keys.ts';
import { createVatChecker } from './adapters/vies/vies-checker.ts';
import { allJobs } from './jobs.ts';
import { buildApp } from './http/app.ts';
import { operations } from './operations.ts';

/** The data folder's layout on the embedded default. */
export function dataPaths(dataDir: string) {
  return {
    events: path.join(dataDir, 'events.sqlite'),
    readModels: path.join(dataDir, 'read-models.sqlite'),
    jobs: path.join(dataDir, 'jobs.sqlite'),
    search: path.join(dataDir, 'search'),
    outbox: path.join(dataDir, 'outbox'),
    files: path.join(dataDir, 'files'),
    secrets: path.join(dataDir, 'secrets'),
    demoCredentials: path.join(dataDir, 'secrets', 'demo-credentials.json'),
  };
}

function tokenSecret(config: Config, secretsDir: string): Buffer {
  if (config.jwtSecret) return Buffer.from(config.jwtSecret, 'utf8');
  const file = path.join(secretsDir, 'jwt.key');
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'utf8');
}

export interface Runtime {
  services: Services;
  app: ReturnType<typeof buildApp>;
  close(): Promise<void>;
}

/**
 * The composition root of the embedded default: engines under DATA_DIR, every projection, the job
 * worker and the HTTP app, in one process. `background: false` leaves the projector loops and the job
 * worker stopped (tools that drive projections themselves).
 */
export async function createRuntime(
  config: Config,
  logger: Logger,
  options: { now?: () => Date; background?: boolean } = {},
): Promise<Runtime> {
  const paths = dataPaths(config.dataDir);
  fs.mkdirSync(config.dataDir, { recursive: true });
  fs.mkdirSync(paths.secrets, { recursive: true, mode: 0o700 });
  const log = new SqliteEventLog(paths.events);
  const documents = new SqliteDocumentStore(paths.readModels);
  const search = await MiniSearchIndex.open({
    dir: paths.search,
    flushIntervalMs: config.searchFlushIntervalMs,
    onError: (error) => logger.error({ err: String(error) }, 'search snapshot failed'),
  });
  const jobsDb = new Database(paths.jobs);
  jobsDb.pragma('journal_mode = WAL');
  jobsDb.pragma('synchronous = NORMAL');
  const jobs = new SqliteJobQueue({ db: jobsDb, logger });
  const outbox = new FileOutbox(paths.outbox);
  const limiter = new MemoryRateLimiter();
  const secret = tokenSecret(config, paths.secrets);
  const tokens = new TokenService(secret);
  const projector = new ProjectorRuntime({ log, documents, search, logger }, allProjections({ jobs, documents }));
  const files = new FolderFileStore(paths.files);
  const services: Services = {
    log,
    documents,
    search,
    jobs,
    outbox,
    files,
    generatedFiles: new GeneratedFiles(files),
    limiter,
    tokens,
    keys: new OneTimeKeys(oneTimeKeySecret(secret)),
    vat: createVatChecker({ viesUrl: config.viesUrl, viesTimeoutMs: config.viesTimeoutMs }),
    projector,
    logger,
    now: options.now ?? (() => new Date()),
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
  };
  await projector.setup();
  if (options.background !== false) {
    for (const [name, processor] of Object.entries(allJobs(services))) jobs.process(name, processor);
    await projector.start();
  }
  const app = buildApp(services, operations, config.http, CATALOGUE_PROJECTIONS);
  let closed = false;
  return {
    services,
    app,
    async close() {
      if (closed) return;
      closed = true;
      await projector.stop();
      await jobs.close();
      await search.close();
      jobsDb.close();
      await documents.close();
      await log.close();
    },
  };
}
