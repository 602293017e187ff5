import { setMaxListeners } from 'node:events';
import type { Config, Role } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { Services } from '../src/services.ts';
import { TokenService } from '../src/security/tokens.ts';
import { ProjectorRuntime } from '../src/projector/runtime.ts';
import { ProjectionVersions } from '../src/http/cache-versions.ts';
import { allProjections, CATALOGUE_PROJECTIONS } from './features/projections.ts';
import { GeneratedFiles } from '../src/generated-files.ts';
import { OneTimeKeys, oneTimeKeySecret } from '../src/security/keys.ts';
import { MailLinks, mailLinkSecret } from '../src/security/mail-links.ts';
import { createVatChecker } from '../src/adapters/vies/vies-checker.ts';
import { allJobs } from './features/jobs.ts';
import { configuredChannels, deliveryReport, deliveryStartNotes, type DeliveryReport } from '../src/adapters/delivery/channels.ts';
import { deliveryFailureRecorder } from '../commands/members/deliveries.ts';
import { buildApp } from '../src/http/app.ts';
import { accessDirectory } from './access-directory.ts';
import { membersProjection } from '../projections/members/projection.ts';
import { accessProjection } from '../projections/access/projection.ts';
import { backOfficeOperations, operations } from './features/operations.ts';
import { eventCatalog } from './features/events.ts';
import { EventFeed } from '../src/events/feed.ts';
import type { FeatureWorker } from '../src/feature.ts';
import { PositionCodec } from '../src/events/position.ts';
import { PublicUrlGuard } from '../src/security/public-url.ts';
import { service } from './features/index.ts';
import { importLines } from './features/intake.ts';
import { openAuctionStreams } from '../queries/auction-stream/operations.ts';
import { openMemberStreams } from '../queries/member-stream/operations.ts';
import { Metrics } from '../src/http/metrics.ts';
import { opsApp, type ParkedSummary } from '../src/http/ops-routes.ts';
import { parkedSummary } from './parked-summary.ts';
import { holdLease, leaseHolder, type HeldLease } from '../src/roles/singleton.ts';
import { engineProbe, workerChecks } from '../src/roles/readiness.ts';
import { dataPaths, openEngines, type Engines } from './engines.ts';
import { noCounters } from '../src/counters.ts';
import { bidderWeb } from '../examples/bidder-web/server.ts';
import { storedDemoApiKey } from './seed/demo.ts';
import { StorageRoom } from '../src/storage-room.ts';
import { makePrivateFolderSync } from '../src/private-files.ts';
import { anchorOf, openKeyRingStore, openSigningKeys } from './key-ring.ts';
import { derivedVapidKeys } from '../src/security/vapid.ts';
import { PushEndpoints } from '../src/security/push-endpoints.ts';
import { DELIVER_PUSH, PushOutbox } from '../src/adapters/delivery/push-outbox.ts';
import { pushDeliveryLookups } from '../commands/push/deliveries.ts';

export { dataPaths } from './engines.ts';

/**
 * The houses' opaque positions (src/events/position.ts), from the key ring's anchor every process reads: for the
 * tools (on their engines' ring store, or one opened for this).
 */
export async function positionCodecOf(config: Config, engines?: Pick<Engines, 'keyRing'>): Promise<PositionCodec> {
  if (engines) return new PositionCodec(await anchorOf(config, engines.keyRing));
  const { store } = await openKeyRingStore(config);
  try {
    return new PositionCodec(await anchorOf(config, store));
  } finally {
    await store.close();
  }
}

export interface Runtime {
  role: Role;
  services: Services;
  engines: Engines;
  /** The HTTP answers of this process: the whole API (`all`, `api`), or health, readiness and metrics only. */
  app: ReturnType<typeof buildApp>;
  metrics: Metrics | null;
  /** The back office's event feed this process serves (null: a role without HTTP operations). */
  feed: EventFeed | null;
  /** Where each channel's messages go and whether it is up, in a process that sends mail and SMS (worker, all); else null. */
  deliveries: (() => Promise<DeliveryReport>) | null;
  /** The process is stopping: requests waiting for events (the back office's feed, `wait`) answer at once. */
  stopWaiting(): void;
  /** What the projections and the job queue parked (for /readyz and /metrics; read at most once a second). */
  parked: () => Promise<ParkedSummary>;
  /** /readyz's look at the engines besides the projections' status: throws when one does not answer. */
  ping: () => Promise<void>;
  /** Starts the projections' loops when they were held back (`holdProjections`); else does nothing. */
  startProjections(): Promise<void>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  now?: () => Date;
  background?: boolean;
  role?: Role;
  /** Hold the projector lease without running the projectors (a tool that writes what the projector owns). */
  projectorLease?: boolean;
  /** A tool that never reads the lot index: the embedded one is not loaded (app/engines.ts). */
  withoutLotIndex?: boolean;
  /**
   * Projections not started until `startProjections()`: a first start seeds its log first, and then catches
   * up in large pages instead of every loop following each of thousands of appends.
   */
  holdProjections?: boolean;
  /**
   * False: `all` without its HTTP API, answering health, readiness and metrics only (the primary of
   * API_PROCESSES ≥ 2, whose forked `api` processes serve PORT; app/main.ts).
   */
  api?: boolean;
  /** Something this process cannot go on without stopped (the lot index's thread): the service stops. */
  onFatal?: (reason: string) => void;
}

/**
 * The composition root: engines chosen by their URLs (app/engines.ts), every feature's projections, jobs
 * and operations, and the parts this process's ROLE runs (API.md "Engines and roles"):
 * - `all`: API, every projection and the job worker; `projector`: the projections and reactors;
 *   `worker`: the background jobs; `api`: HTTP only (with the embedded lot index, a replica of it).
 * - `projector` (and `all`) and `worker` (and `all`) are singletons per set of engines: a lease refuses a
 *   second one at start.
 * `background: false` runs no loop, no worker and takes no lease (tools such as import and rebuild, which
 * may run beside the service); `api: false` is `all` without the HTTP API (a cluster primary).
 */
export async function createRuntime(config: Config, logger: Logger, options: RuntimeOptions = {}): Promise<Runtime> {
  const role = options.role ?? config.role;
  const background = options.background !== false;
  const paths = dataPaths(config.dataDir);
  const runsProjections = background && (role === 'all' || role === 'projector');
  const runsJobs = background && (role === 'all' || role === 'worker');
  const leases: HeldLease[] = [];
  // Whether the stores have room for writes (a full disk): one record for every part of the process.
  const storage = new StorageRoom({ dataDir: config.dataDir, logger });
  const engines = await openEngines(config, logger, role, {
    storage,
    withoutLotIndex: options.withoutLotIndex,
    searchThread: config.searchThread && background && ((role === 'all' && options.api !== false) || role === 'api'),
    onFatal: options.onFatal,
    claim: claimRoles({ role, runsProjections, runsJobs, projectorLease: options.projectorLease }, leases, logger, storage),
  });
  const { jobs } = engines;
  // After the engines: DATA_DIR is made private (or refused) before anything is written into it.
  makePrivateFolderSync(paths.secrets);
  const signing = await openSigning(config, engines, logger, leases, storage);
  const projector = new ProjectorRuntime(
    { log: engines.log, documents: engines.documents, search: engines.search, logger, storage },
    allProjections({ jobs, documents: engines.documents }),
  );
  const versions = projectionVersions(projector);
  const parked = parkedSummary(projector, jobs);
  const metrics = metricsOf(config, role, projector, parked, storage);
  const push = pushOutbox(config, jobs, signing.anchor);
  const services = servicesOf(config, engines, { signing, push, projector, metrics, storage, logger, now: options.now });
  await projector.setup();
  const deliveries = await startDeliveries(config, role, runsJobs, { engines, services, push, metrics });
  // A worker has no projections whose status reaches the log and the read models: it looks at each of its engines.
  const ping = role === 'worker' ? engineProbe(workerChecks(engines)) : () => engines.ping();
  let startLoops = background ? projectionLoops(projector, role, runsProjections, engines.searchInProcess) : null;
  if (!options.holdProjections) await startLoops?.();
  const stopping = new AbortController();
  // Every open stream and waiting request listens for the stop (thousands of them).
  setMaxListeners(0, stopping.signal);
  const servesHttp = (role === 'all' && options.api !== false) || role === 'api' || !background;
  const pages = demoPages(config, paths);
  const feed =
    servesHttp || runsJobs ? new EventFeed(engines.log, eventCatalog, new PositionCodec(signing.anchor), stopping.signal, logger) : null;
  if (metrics) countReaders(metrics, feed);
  const urls = new PublicUrlGuard(config.webhookAllowPrivate);
  const workers = await startWorkers(services, runsJobs ? { feed: feed!, urls, metrics } : null);
  const surface = { role, metrics, ping, storage, parked, deliveries };
  const app = servesHttp
    ? apiApp(config, services, { versions, feed: feed!, urls, pages, offLoop: engines.offLoop }, surface)
    : opsOnlyApp(config, runsProjections ? () => projector.status() : undefined, surface);
  let closed = false;
  return {
    role,
    services,
    engines,
    app,
    metrics,
    feed,
    parked,
    ping,
    deliveries: deliveries ?? null,
    stopWaiting: () => stopping.abort(),
    async startProjections() {
      const start = startLoops;
      startLoops = null;
      if (options.holdProjections) await start?.();
    },
    async close() {
      if (closed) return;
      closed = true;
      stopping.abort();
      for (const worker of workers) await worker.stop();
      await projector.stop();
      await jobs.close();
      for (const lease of leases) await lease.release();
      signing.close();
      await engines.close();
      storage.close();
    },
  };
}

/**
 * The singleton roles this process takes, claimed when the engines are open: the projector's lease (or a tool's,
 * `projectorLease`, which does not wait) and the worker's; on a refusal the leases taken are given back.
 */
function claimRoles(
  roles: { role: Role; runsProjections: boolean; runsJobs: boolean; projectorLease?: boolean },
  leases: HeldLease[],
  logger: Logger,
  storage: StorageRoom,
) {
  const { role, runsProjections, runsJobs, projectorLease } = roles;
  return async (stores: Engines['leases']) => {
    try {
      if (runsProjections || projectorLease) {
        const holder = leaseHolder(runsProjections ? role : 'tool');
        leases.push(await holdLease(stores.projector, 'projector', holder, logger, { storage, ...(projectorLease ? { waitMs: 0 } : {}) }));
      }
      if (runsJobs) leases.push(await holdLease(stores.worker, 'worker', leaseHolder(role), logger, { storage }));
    } catch (error) {
      for (const lease of leases) await lease.release();
      throw error;
    }
  };
}

/** The process's signing keys; when they cannot be opened, the leases, engines and storage record are let go. */
async function openSigning(config: Config, engines: Engines, logger: Logger, leases: HeldLease[], storage: StorageRoom) {
  try {
    return await openSigningKeys(config, engines.keyRing, logger);
  } catch (error) {
    for (const lease of leases) await lease.release();
    await engines.close();
    storage.close();
    throw error;
  }
}

/**
 * Cached answers follow the projections they read: told of changes by the projector here, reading the stored
 * checkpoints of those that run elsewhere (on a tick, and before each request when their stores changed).
 */
function projectionVersions(projector: ProjectorRuntime): ProjectionVersions {
  const versions = new ProjectionVersions({
    checkpoints: (names) => projector.checkpoints(names),
    handledBetween: (name, from, to) => projector.handledBetween(name, from, to),
    changeMark: (names) => projector.changeMark(names),
  });
  projector.subscribe(versions);
  return versions;
}

/** Every engine and service of the process (src/services.ts), from its engines, keys, projector and metrics. */
function servicesOf(
  config: Config,
  engines: Engines,
  made: {
    signing: Awaited<ReturnType<typeof openSigningKeys>>;
    push: PushOutbox;
    projector: ProjectorRuntime;
    metrics: Metrics | null;
    storage: StorageRoom;
    logger: Logger;
    now?: () => Date;
  },
): Services {
  const { log, documents, search, jobs, limiter, outbox, files } = engines;
  const { signing, push, projector, metrics, storage, logger } = made;
  return {
    log,
    documents,
    search,
    jobs,
    outbox,
    files,
    generatedFiles: new GeneratedFiles(files, storage),
    limiter,
    tokens: new TokenService(signing.keys),
    keys: new OneTimeKeys(oneTimeKeySecret(signing.anchor)),
    links: new MailLinks(mailLinkSecret(signing.anchor), config.http.publicUrl ?? null),
    vat: createVatChecker({ viesUrl: config.viesUrl, viesTimeoutMs: config.viesTimeoutMs }),
    push,
    projector,
    logger,
    now: made.now ?? (() => new Date()),
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
    counters: metrics?.counters ?? noCounters,
    storage,
  };
}

/** Web Push's outbox. The VAPID key pair: the environment's, else derived from the ring's anchor (the same in every process and machine). */
function pushOutbox(config: Config, jobs: Engines['jobs'], anchor: Buffer): PushOutbox {
  return new PushOutbox(jobs, {
    vapid: config.push.vapid ?? derivedVapidKeys(anchor),
    subject: config.push.subject,
    endpoints: new PushEndpoints(config.push.endpointHosts, config.push.allowPrivate),
    firstRetryMs: config.delivery.firstRetryMs,
  });
}

/** The process's metrics (null: METRICS=off), with the projections' status, what they parked and the storage's room. */
function metricsOf(config: Config, role: Role, projector: ProjectorRuntime, parked: () => Promise<ParkedSummary>, storage: StorageRoom) {
  if (config.metrics === 'off') return null;
  const metrics = new Metrics({
    role,
    projections: () => projector.status(),
    parked,
    projectionNames: projector.projections.map((p) => p.name),
  });
  metrics.storage(storage);
  return metrics;
}

/** The readers the metrics count: the back office's feed (where this process has one) and the open streams. */
function countReaders(metrics: Metrics, feed: EventFeed | null): void {
  if (feed) metrics.feedReaders(() => feed.readers);
  metrics.auctionStreams(openAuctionStreams);
  metrics.memberStreams(openMemberStreams);
}

/**
 * Where the jobs run, the jobs started and the channels this process sends by (SMTP, Twilio) checked, a worker's
 * (or all's) /readyz and /metrics saying whether each is down; the report of where mail and SMS go, for the roles
 * that send them (`worker`, `all`), else undefined.
 */
async function startDeliveries(
  config: Config,
  role: Role,
  runsJobs: boolean,
  { engines, services, push, metrics }: { engines: Engines; services: Services; push: PushOutbox; metrics: Metrics | null },
): Promise<(() => Promise<DeliveryReport>) | undefined> {
  const sending = runsJobs ? engines.delivery : null;
  if (runsJobs) await startJobs(config, services, push, sending, metrics);
  if (sending) {
    metrics?.deliveryChannels(() => sending.channels());
    // The start-up check: logged when a channel is down, never a reason not to start.
    void sending.verify(services.logger).catch(() => undefined);
  }
  if (role !== 'all' && role !== 'worker') return undefined;
  return () => deliveryReport(engines.jobs, configuredChannels(config.delivery), sending ? sending.channels() : {});
}

/** The worker's part: every feature's job processors, the mail, SMS and push deliveries, timed by the metrics. */
async function startJobs(
  config: Config,
  services: Services,
  push: PushOutbox,
  sending: Engines['delivery'],
  metrics: Metrics | null,
): Promise<void> {
  const { log, documents, jobs, logger, counters } = services;
  const recordFailure = deliveryFailureRecorder(log);
  const delivery = sending ? sending.processors({ logger, counters, recordFailure }) : {};
  // Pushes go out from every worker: push services are on the network whatever the mail settings.
  delivery[DELIVER_PUSH] = push.processor({ ...pushDeliveryLookups(log, documents), recordFailure, counters, logger });
  for (const [name, processor] of Object.entries({ ...allJobs(services), ...delivery }))
    jobs.process(name, metrics ? metrics.job(name, processor) : processor);
  for (const { text, ...meta } of await deliveryStartNotes(jobs, config.delivery)) logger.warn(meta, text);
}

/**
 * What starts the projections' loops here: all of them where the projections run; an `api` with the embedded lot
 * index keeps its own replica of it up to date (everything else it reads follows the projector's stored
 * checkpoints); a worker runs none (null).
 */
function projectionLoops(projector: ProjectorRuntime, role: Role, runsProjections: boolean, searchInProcess: boolean) {
  const here = runsProjections
    ? projector.projections.map((p) => p.name)
    : role === 'api' && searchInProcess
      ? projector.projections.filter((p) => p.kind === 'search').map((p) => p.name)
      : [];
  return role !== 'worker' ? () => projector.start(here) : null;
}

/**
 * The features' own collections (not a projection's), declared by every role (every role reads them); and, where
 * the jobs run (`worker` given), the features' workers (the webhooks' deliveries), started.
 */
async function startWorkers(
  services: Services,
  worker: { feed: EventFeed; urls: PublicUrlGuard; metrics: Metrics | null } | null,
): Promise<FeatureWorker[]> {
  const { log, documents, now, logger } = services;
  for (const spec of service.collections) await documents.ensureCollection(spec);
  const workers = worker
    ? service.workers({ log, documents, feed: worker.feed, urls: worker.urls, now, logger, metrics: worker.metrics?.webhooks })
    : [];
  for (const started of workers) await started.start();
  return workers;
}

/** The reference bidder front end on the demo data (examples/bidder-web), with the demo's Api-Key once it is known. */
function demoPages(config: Config, paths: ReturnType<typeof dataPaths>) {
  if (!config.seedDemo) return [];
  return [
    {
      path: '/demo',
      handler: bidderWeb({
        tenant: 'demo',
        apiUrl: config.demoWebApiUrl,
        imageOrigins: config.demoWebImageOrigins,
        apiKey: () => config.demoApiKey ?? storedDemoApiKey(paths.demoCredentials),
      }),
    },
  ];
}

/** What the HTTP side of any role reports: its health, readiness and metrics. */
interface Surface {
  role: Role;
  metrics: Metrics | null;
  ping: () => Promise<void>;
  storage: StorageRoom;
  parked: () => Promise<ParkedSummary>;
  deliveries: (() => Promise<DeliveryReport>) | undefined;
}

/** The whole API (`all`, `api`, the tools): every feature's operations, the back office's, and the demo's pages. */
function apiApp(
  config: Config,
  services: Services,
  parts: {
    versions: ProjectionVersions;
    feed: EventFeed;
    urls: PublicUrlGuard;
    pages: ReturnType<typeof demoPages>;
    offLoop: Engines['offLoop'];
  },
  { role, metrics, ping, storage, parked, deliveries }: Surface,
) {
  const { log, documents, files } = services;
  const { versions } = parts;
  return buildApp(
    services,
    [...operations, ...backOfficeOperations],
    config.http,
    versions.scoped(CATALOGUE_PROJECTIONS),
    accessDirectory(
      documents,
      {
        access: versions.of([accessProjection.name]),
        members: versions.of([membersProjection.name]),
      },
      log,
    ),
    {
      role,
      metrics,
      metricsElsewhere: config.metrics !== 'on',
      fresh: () => versions.fresh(),
      ping,
      storage: () => storage.check(),
      parked,
      deliveries,
      offLoop: parts.offLoop,
      // Round trips exist only with engines across a network: the embedded default keeps no tally.
      roundTrips: config.engines.postgres !== null || config.engines.redis !== null,
    },
    {
      feed: parts.feed,
      urls: parts.urls,
      intake:
        (tenant) =>
        (lines, { correlationId }) =>
          importLines(log, lines, undefined, { files, tenant, correlationId }),
    },
    parts.pages,
  );
}

/** Health, readiness and metrics only (`projector`, `worker`, a cluster primary); metrics inline when METRICS=on. */
function opsOnlyApp(config: Config, projections: (() => ReturnType<ProjectorRuntime['status']>) | undefined, surface: Surface) {
  const { role, metrics, ping, storage, parked, deliveries } = surface;
  return opsApp({
    role,
    maxLagSeconds: config.http.readyMaxLagSeconds,
    metrics: config.metrics === 'on' ? metrics : null,
    access: { operatorToken: config.http.operatorToken ?? null },
    projections,
    ping,
    storage: () => storage.check(),
    parked,
    deliveries,
  }) as unknown as ReturnType<typeof buildApp>;
}
