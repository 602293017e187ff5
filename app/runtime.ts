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
import { accessDirectory } from '../projections/access/index.ts';
import { membersProjection } from '../projections/members/projection.ts';
import { accessProjection } from '../projections/access/projection.ts';
import { backOfficeOperations, operations } from './features/operations.ts';
import { eventCatalog } from './features/events.ts';
import { EventFeed } from '../src/events/feed.ts';
import { PositionCodec } from '../src/events/position.ts';
import { PublicUrlGuard } from '../src/security/public-url.ts';
import { service } from './features/index.ts';
import { importLines } from './features/intake.ts';
import { openAuctionStreams } from '../queries/auction-stream/operations.ts';
import { openMemberStreams } from '../queries/member-stream/operations.ts';
import { Metrics } from '../src/http/metrics.ts';
import { opsApp, type ParkedSummary } from '../src/http/ops-routes.ts';
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
export async function createRuntime(
  config: Config,
  logger: Logger,
  options: {
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
  } = {},
): Promise<Runtime> {
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
    async claim(stores) {
      try {
        if (runsProjections || options.projectorLease) {
          const holder = leaseHolder(runsProjections ? role : 'tool');
          leases.push(
            await holdLease(stores.projector, 'projector', holder, logger, { storage, ...(options.projectorLease ? { waitMs: 0 } : {}) }),
          );
        }
        if (runsJobs) leases.push(await holdLease(stores.worker, 'worker', leaseHolder(role), logger, { storage }));
      } catch (error) {
        for (const lease of leases) await lease.release();
        throw error;
      }
    },
  });
  const { log, documents, search, jobs, limiter, outbox, files } = engines;

  // After the engines: DATA_DIR is made private (or refused) before anything is written into it.
  makePrivateFolderSync(paths.secrets);
  let signing: Awaited<ReturnType<typeof openSigningKeys>>;
  try {
    signing = await openSigningKeys(config, engines.keyRing, logger);
  } catch (error) {
    for (const lease of leases) await lease.release();
    await engines.close();
    storage.close();
    throw error;
  }
  const tokens = new TokenService(signing.keys);
  // The VAPID key pair: the environment's, else derived from the ring's anchor (the same in every process and machine).
  const push = new PushOutbox(jobs, {
    vapid: config.push.vapid ?? derivedVapidKeys(signing.anchor),
    subject: config.push.subject,
    endpoints: new PushEndpoints(config.push.endpointHosts, config.push.allowPrivate),
    firstRetryMs: config.delivery.firstRetryMs,
  });
  const projector = new ProjectorRuntime({ log, documents, search, logger, storage }, allProjections({ jobs, documents }));
  // Cached answers follow the projections they read: told of changes by the projector here, reading the stored
  // checkpoints of those that run elsewhere (on a tick, and before each request when their stores changed).
  const versions = new ProjectionVersions({
    checkpoints: (names) => projector.checkpoints(names),
    handledBetween: (name, from, to) => projector.handledBetween(name, from, to),
    changeMark: (names) => projector.changeMark(names),
  });
  projector.subscribe(versions);
  const parked = parkedSummary(projector, jobs);
  const metrics =
    config.metrics === 'off'
      ? null
      : new Metrics({ role, projections: () => projector.status(), parked, projectionNames: projector.projections.map((p) => p.name) });
  metrics?.storage(storage);
  const services: Services = {
    log,
    documents,
    search,
    jobs,
    outbox,
    files,
    generatedFiles: new GeneratedFiles(files, storage),
    limiter,
    tokens,
    keys: new OneTimeKeys(oneTimeKeySecret(signing.anchor)),
    links: new MailLinks(mailLinkSecret(signing.anchor), config.http.publicUrl ?? null),
    vat: createVatChecker({ viesUrl: config.viesUrl, viesTimeoutMs: config.viesTimeoutMs }),
    push,
    projector,
    logger,
    now: options.now ?? (() => new Date()),
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
    counters: metrics?.counters ?? noCounters,
    storage,
  };
  await projector.setup();
  // The channels this process sends by (SMTP, Twilio): a worker's (or all's) /readyz and /metrics say whether each is down.
  const sending = runsJobs ? engines.delivery : null;
  if (runsJobs) {
    const recordFailure = deliveryFailureRecorder(log);
    const delivery = sending ? sending.processors({ logger, counters: services.counters, recordFailure }) : {};
    // Pushes go out from every worker: push services are on the network whatever the mail settings.
    delivery[DELIVER_PUSH] = push.processor({ ...pushDeliveryLookups(log, documents), recordFailure, counters: services.counters, logger });
    for (const [name, processor] of Object.entries({ ...allJobs(services), ...delivery }))
      jobs.process(name, metrics ? metrics.job(name, processor) : processor);
    for (const { text, ...meta } of await deliveryStartNotes(jobs, config.delivery)) logger.warn(meta, text);
  }
  if (sending) {
    metrics?.deliveryChannels(() => sending.channels());
    // The start-up check: logged when a channel is down, never a reason not to start.
    void sending.verify(logger).catch(() => undefined);
  }
  // Where mail and SMS go, and whether each channel is up, in the /readyz of the roles that send them (`worker`, `all`).
  const deliveries =
    role === 'all' || role === 'worker'
      ? () => deliveryReport(jobs, configuredChannels(config.delivery), sending ? sending.channels() : {})
      : undefined;
  // A worker has no projections whose status reaches the log and the read models: it looks at each of its engines.
  const ping = role === 'worker' ? engineProbe(workerChecks(engines)) : () => engines.ping();
  let startLoops: (() => Promise<void>) | null = null;
  if (background) {
    // An `api` with the embedded lot index keeps its own replica of it up to date; everything else it
    // reads follows the projector's stored checkpoints.
    const here = runsProjections
      ? projector.projections.map((p) => p.name)
      : role === 'api' && engines.searchInProcess
        ? projector.projections.filter((p) => p.kind === 'search').map((p) => p.name)
        : [];
    if (role !== 'worker') startLoops = () => projector.start(here);
  }
  if (!options.holdProjections) await startLoops?.();
  const inlineMetrics = config.metrics === 'on' ? metrics : null;
  const memberProjections = [membersProjection.name];
  const accessProjections = [accessProjection.name];
  const stopping = new AbortController();
  // Every open stream and waiting request listens for the stop (thousands of them).
  setMaxListeners(0, stopping.signal);
  const servesHttp = (role === 'all' && options.api !== false) || role === 'api' || !background;
  // The reference bidder front end on the demo data (examples/bidder-web), with the demo's Api-Key once it is known.
  const pages = config.seedDemo
    ? [
        {
          path: '/demo',
          handler: bidderWeb({
            tenant: 'demo',
            apiUrl: config.demoWebApiUrl,
            imageOrigins: config.demoWebImageOrigins,
            apiKey: () => config.demoApiKey ?? storedDemoApiKey(paths.demoCredentials),
          }),
        },
      ]
    : [];
  const feed = servesHttp || runsJobs ? new EventFeed(log, eventCatalog, new PositionCodec(signing.anchor), stopping.signal, logger) : null;
  if (feed) metrics?.feedReaders(() => feed.readers);
  metrics?.auctionStreams(openAuctionStreams);
  metrics?.memberStreams(openMemberStreams);
  const urls = new PublicUrlGuard(config.webhookAllowPrivate);
  // The features' own collections (not a projection's): every role reads them, their workers write them.
  for (const spec of service.collections) await documents.ensureCollection(spec);
  // The features' workers (the webhooks' deliveries) run where the jobs run.
  const workers = runsJobs
    ? service.workers({ log, documents, feed: feed!, urls, now: services.now, logger, metrics: metrics?.webhooks })
    : [];
  for (const worker of workers) await worker.start();
  const app = servesHttp
    ? buildApp(
        services,
        [...operations, ...backOfficeOperations],
        config.http,
        versions.scoped(CATALOGUE_PROJECTIONS),
        accessDirectory(
          documents,
          {
            access: versions.of(accessProjections),
            members: versions.of(memberProjections),
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
          offLoop: engines.offLoop,
          // Round trips exist only with engines across a network: the embedded default keeps no tally.
          roundTrips: config.engines.postgres !== null || config.engines.redis !== null,
        },
        {
          feed: feed!,
          urls,
          intake:
            (tenant) =>
            (lines, { correlationId }) =>
              importLines(log, lines, undefined, { files, tenant, correlationId }),
        },
        pages,
      )
    : (opsApp({
        role,
        maxLagSeconds: config.http.readyMaxLagSeconds,
        metrics: inlineMetrics,
        access: { operatorToken: config.http.operatorToken ?? null },
        projections: runsProjections ? () => projector.status() : undefined,
        ping,
        storage: () => storage.check(),
        parked,
        deliveries,
      }) as unknown as ReturnType<typeof buildApp>);
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
 * What the projections and the job queue parked, read at most once a second (every /readyz probe and scrape asks):
 * the projections' events parked and held, the jobs parked by name.
 */
function parkedSummary(projector: ProjectorRuntime, jobs: Engines['jobs']): () => Promise<ParkedSummary> {
  let last: { at: number; summary: Promise<ParkedSummary> } | null = null;
  const read = async (): Promise<ParkedSummary> => {
    const projections: ParkedSummary['projections'] = {};
    for (const [name, { parked, held }] of Object.entries(await projector.parked.counts()))
      if (parked + held > 0) projections[name] = { parked, held };
    return { projections, jobs: await jobs.parkedCounts() };
  };
  return () => {
    if (!last || Date.now() - last.at > 1000) {
      const summary = read();
      last = { at: Date.now(), summary };
      summary.catch(() => (last = null));
    }
    return last.summary;
  };
}
