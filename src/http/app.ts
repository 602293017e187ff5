// The HTTP shell: CORS, request ids and logs, body checks, the docs, and every declared operation routed
// through the same steps (credentials, validation, caching, answer), so each one is served alike. The middleware
// is in app-middleware.ts, the documents in app-documents.ts, the operations' routes in app-operation-routes.ts.
import express, { type RequestHandler } from 'express';
import type { Services } from '../services.ts';
import type { HttpConfig } from '../config.ts';
import { Authenticator } from './auth.ts';
import type { AccessDirectory } from './access-directory.ts';
import type { Metrics } from './metrics.ts';
import { mountOps, READY_MAX_LAG_SECONDS, type OpsSources, type ParkedSummary } from './ops-routes.ts';
import { beforeExpress } from './before-express.ts';
import { catalogueFastPath } from './catalogue-fast-path.ts';
import { DerivedValues } from './derived-values.ts';
import type { BackOfficeDoor, Operation } from './operation.ts';
import { problemMiddleware } from './problem.ts';
import { ResponseCache } from './response-cache.ts';
import type { OffLoopOperations } from './off-loop.ts';
import { SearchGate } from './search-gate.ts';
import { RequestSteps, type CatalogueVersion } from './request-steps.ts';
import { answeredLog, corsMiddleware, corsPolicy, freshCaches, requestIdAndLog, startRoundTrips, useBodies } from './app-middleware.ts';
import { serveDocuments } from './app-documents.ts';
import { routeOperations, unknownRoute } from './app-operation-routes.ts';

/**
 * The process's role (for /healthz, /readyz) and its metrics (null: off), which count every request; GET
 * /metrics is served here unless `metricsElsewhere` (METRICS_PORT: a port of their own). `fresh`: asked before
 * every API request; a promise when the versions of the caches must be read again first
 * (ProjectionVersions.fresh: projections another process runs may have moved).
 */
export interface AppOps {
  role: string;
  metrics: Metrics | null;
  metricsElsewhere?: boolean;
  fresh?: () => Promise<void> | null;
  /** Throws when an engine does not answer (/readyz). */
  ping?: () => Promise<void>;
  /** Whether a store has no room for writes, looked at again (/readyz). */
  storage?: () => Promise<boolean>;
  /** What the projections and the job queue parked (/readyz: `degraded`). */
  parked?: () => Promise<ParkedSummary>;
  /** Where mail and SMS go, what waits for a transport, and whether each channel is down (/readyz). */
  deliveries?: OpsSources['deliveries'];
  /** Operations whose handler runs beside the event loop (src/http/off-loop.ts). */
  offLoop?: OffLoopOperations | null;
  /** Count each request's round trips to PostgreSQL and Redis (networked engines and metrics on). */
  roundTrips?: boolean;
}

/** Builds the HTTP shell: every operation validated, authenticated, and answered as JSON or problem+json. */
export function buildApp(
  services: Services,
  operations: Operation[],
  config: HttpConfig,
  /**
   * The version of the projections catalogue reads come from, by tenant and auction (ProjectionVersions.scoped):
   * a cached answer is used while it has not moved; null, nothing is cached.
   */
  catalogueVersion: CatalogueVersion,
  /** Api-Keys, tenants, members and applications, as the feature that keeps them answers (credential checks). */
  directory: AccessDirectory,
  ops: AppOps = { role: 'all', metrics: null },
  /** What the back office's operations are served with (null: /backoffice/v1 is not served here). */
  backOffice: BackOfficeDoor | null = null,
  /** Pages served beside the API under a path of their own (the reference front end at /demo), as app/ composes them. */
  pages: Array<{ path: string; handler: RequestHandler }> = [],
) {
  const app = express();
  const auth = new Authenticator(directory, services.tokens);
  const responseCache = config.responseCache ? new ResponseCache(ops.metrics?.counters) : null;
  const logger = services.logger;
  const answered = answeredLog(logger, ops.metrics);
  const derivedValues = new DerivedValues(catalogueVersion);
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  // ETags are computed below for operation answers (express's check skips If-None-Match on no-cache requests).
  app.set('etag', false);
  const cors = corsPolicy(config.corsOrigins);

  // Round trips to PostgreSQL and Redis, counted from here on for the request's metrics (src/round-trips.ts).
  const countsRoundTrips = ops.metrics !== null && ops.roundTrips === true;
  if (countsRoundTrips) app.use(startRoundTrips);
  const fresh = ops.fresh;
  if (fresh) app.use(freshCaches(fresh));
  // Catalogue answers already in the response cache, to callers already checked: before Express itself, or
  // before its router where round trips are counted (their counter starts in a middleware).
  if (responseCache) {
    const now = () => services.now().getTime();
    const catalogue = operations.filter((op) => op.cache?.catalogue === true);
    const fastPath = catalogueFastPath({
      operations: catalogue,
      cache: responseCache,
      auth,
      version: catalogueVersion,
      now,
      cors: cors.headers,
      answered,
    });
    if (countsRoundTrips) app.use(fastPath);
    else beforeExpress(app, fastPath, fresh);
  }
  app.use(requestIdAndLog(answered));
  app.use(corsMiddleware(cors));
  useBodies(app, operations, countsRoundTrips);

  mountOps(app, {
    role: ops.role,
    maxLagSeconds: config.readyMaxLagSeconds,
    metrics: ops.metricsElsewhere ? null : ops.metrics,
    access: { operatorToken: config.operatorToken ?? null },
    projections: () => services.projector.status(),
    ping: ops.ping,
    storage: ops.storage,
    parked: ops.parked,
    deliveries: ops.deliveries,
  });
  serveDocuments(app, operations, pages);

  const maxLagSeconds = config.readyMaxLagSeconds ?? READY_MAX_LAG_SECONDS;
  const searchGate = new SearchGate(services.search, () => services.projector.status('search'), maxLagSeconds);
  const publicUrl = config.publicUrl ?? null;
  const steps = new RequestSteps({ searchGate, services, auth, derivedValues, responseCache, catalogueVersion, backOffice, publicUrl });
  const methodsByPath = routeOperations(app, operations, { steps, searchGate, catalogueVersion, offLoop: ops.offLoop ?? null });
  app.use(unknownRoute(methodsByPath));
  app.use(problemMiddleware(logger, services.storage));
  return app;
}
