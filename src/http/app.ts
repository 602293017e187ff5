// The HTTP shell: CORS, request ids and logs, body checks, the docs, and every declared operation routed
// through the same steps (credentials, validation, caching, answer), so each one is served alike.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import compression from 'compression';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError, NotFoundError, UnsupportedMediaTypeError } from '../errors.ts';
import type { Services } from '../services.ts';
import { requestLogger } from '../logger.ts';
import type { HttpConfig } from '../config.ts';
import { Authenticator } from './auth.ts';
import type { AccessDirectory } from './access-directory.ts';
import { hasBody, parseInput } from './input.ts';
import { isFormBody, readFormBody } from './form-body.ts';
import { JSON_BODY_LIMIT, jsonBody, refuseBody } from './request-body.ts';
import type { Metrics } from './metrics.ts';
import { mountOps, READY_MAX_LAG_SECONDS, type OpsSources, type ParkedSummary } from './ops-routes.ts';
import { catalogueFastPath, requestIdOf } from './catalogue-fast-path.ts';
import { DerivedValues } from './derived-values.ts';
import type { BackOfficeDoor, BaseContext, Operation, TenantContext } from './operation.ts';
import { problemMiddleware, sendProblem } from './problem.ts';
import { BACK_OFFICE_DOCS, buildBackOfficeOpenApiDocument, buildOpenApiDocument, docsPage } from './openapi/index.ts';
import { ResponseCache, weakEtag } from './response-cache.ts';
import { FileAnswer } from './file-answer.ts';
import { runOffLoop, type OffLoopOperations } from './off-loop.ts';
import { SearchGate } from './search-gate.ts';
import { chooseEncoding } from './compression.ts';
import { StreamedAnswer } from './event-stream.ts';
import { sendFile, sendBody, type EncodedCopies } from './send.ts';
import { closeRoundTrips, countRoundTrips, newRoundTrips, requestRoundTrips, type RoundTrips } from '../round-trips.ts';
import {
  expiresAt,
  isShared,
  jsonEntry,
  representationHeaders,
  RequestSteps,
  responseCacheKey,
  sendJson,
  type CatalogueVersion,
} from './request-steps.ts';

const toExpressPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

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
  /**
   * The process's role (for /healthz, /readyz) and its metrics (null: off), which count every request; GET
   * /metrics is served here unless `metricsElsewhere` (METRICS_PORT: a port of their own). `fresh`: asked before
   * every API request; a promise when the versions of the caches must be read again first
   * (ProjectionVersions.fresh: projections another process runs may have moved).
   */
  ops: {
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
  } = {
    role: 'all',
    metrics: null,
  },
  /** What the back office's operations are served with (null: /backoffice/v1 is not served here). */
  backOffice: BackOfficeDoor | null = null,
  /** Pages served beside the API under a path of their own (the reference front end at /demo), as app/ composes them. */
  pages: Array<{ path: string; handler: RequestHandler }> = [],
) {
  const app = express();
  const auth = new Authenticator(directory, services.tokens);
  const responseCache = config.responseCache ? new ResponseCache() : null;
  const logger = services.logger;
  const requestLog = requestLogger(logger);
  const derivedValues = new DerivedValues(catalogueVersion);
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  // ETags are computed below for operation answers (express's check skips If-None-Match on no-cache requests).
  app.set('etag', false);

  /** Logs and counts an answered request (one log line per request: no bodies, tokens, keys or passwords). */
  const answered = (
    requestId: string,
    operationId: string,
    method: string,
    path: string,
    status: number,
    started: number,
    trips = requestRoundTrips(),
  ) => {
    const ms = performance.now() - started;
    ops.metrics?.observe(operationId, method, status, ms / 1000, trips && closeRoundTrips(trips));
    requestLog.info({ reqId: requestId, method, path, status, ms }, 'request');
  };

  // CORS: auction houses call the API from their own sites' pages. Credentials travel in headers (no
  // cookies), so any origin may call unless CORS_ORIGINS names the allowed ones (comma-separated).
  const allowedOrigins = config.corsOrigins;
  const anyOrigin = allowedOrigins.includes('*');
  const corsHeaders = (origin: string | undefined): string[] =>
    origin && (anyOrigin || allowedOrigins.includes(origin))
      ? [
          'Access-Control-Allow-Origin',
          anyOrigin ? '*' : origin,
          'Access-Control-Expose-Headers',
          'ETag, Content-Language, Date, Retry-After, X-Request-Id, Allow',
        ]
      : [];

  // Round trips to PostgreSQL and Redis, counted from here on for the request's metrics (src/round-trips.ts).
  const countsRoundTrips = ops.metrics !== null && ops.roundTrips === true;
  if (countsRoundTrips)
    app.use((_req: Request, res: Response, next: NextFunction) => countRoundTrips((res.locals.roundTrips = newRoundTrips()), next));

  // Read your writes across processes: every cache below (answers, credentials, derived values) is checked against
  // versions read after the request arrived, so a write another process answered is never hidden by one.
  const fresh = ops.fresh;
  if (fresh) {
    app.use((req: Request, _res: Response, next: NextFunction) => {
      const url = req.url;
      const wait = url.startsWith('/v1/') || url.startsWith('/backoffice/v1/') ? fresh() : null;
      if (wait) wait.then(() => next(), next);
      else next();
    });
  }

  // Catalogue answers already in the response cache, to callers already checked: before the router.
  if (responseCache) {
    app.use(
      catalogueFastPath({
        operations: operations.filter((op) => op.cache?.catalogue === true),
        cache: responseCache,
        auth,
        version: catalogueVersion,
        now: () => services.now().getTime(),
        cors: corsHeaders,
        answered,
      }),
    );
  }

  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const trips = res.locals.roundTrips as RoundTrips | undefined;
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const operationId = typeof res.locals.operationId === 'string' ? res.locals.operationId : 'none';
      answered(requestId, operationId, req.method, req.path, res.statusCode, started, trips);
    });
    next();
  });

  app.use((req: Request, res: Response, next: NextFunction) => {
    const cors = corsHeaders(req.headers.origin);
    if (cors.length > 0) {
      for (let i = 0; i < cors.length; i += 2) res.setHeader(cors[i], cors[i + 1]);
      if (!anyOrigin) res.append('Vary', 'Origin');
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
        res.setHeader(
          'Access-Control-Allow-Headers',
          'Api-Key, Authorization, Content-Type, Accept-Language, If-None-Match, X-Request-Id, Idempotency-Key, Last-Event-ID',
        );
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
    }
    next();
  });

  // Bodies: JSON only, size-limited, except multipart uploads to the operations that take one (their
  // handlers read and limit them). A body of another type is a 415 before anything else reads it.
  const routesOf = (ops: Operation[]) => ops.map((op) => ({ method: op.route.method.toUpperCase(), path: toExpressPath(op.route.path) }));
  const uploads = routesOf(operations.filter((op) => op.input?.upload));
  const ndjsonBodies = routesOf(operations.filter((op) => op.input?.ndjson));
  const formBodies = routesOf(operations.filter((op) => op.input?.form));
  const isUpload = (req: Request) =>
    (req.is('multipart/form-data') && uploads.some((u) => u.method === req.method && matchPath(u.path, req.path))) ||
    (req.is('application/x-ndjson') && ndjsonBodies.some((u) => u.method === req.method && matchPath(u.path, req.path))) ||
    (isFormBody(req) && formBodies.some((u) => u.method === req.method && matchPath(u.path, req.path)));
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (hasBody(req) && !req.is('application/json') && !req.is('application/*+json') && !isUpload(req)) {
      refuseBody(req, res, JSON_BODY_LIMIT);
      next(new UnsupportedMediaTypeError());
      return;
    }
    next();
  });
  app.use(jsonBody(JSON_BODY_LIMIT));
  // The body came from the socket's events: the rest of the request counts into its tally again.
  if (countsRoundTrips)
    app.use((_req: Request, res: Response, next: NextFunction) => countRoundTrips(res.locals.roundTrips as RoundTrips, next));

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

  /** A fixed answer (a document, a page): its ETag and compressed copies made once. */
  const serveFixed = (route: string, text: string, contentType?: string, headers: Record<string, string> = {}) => {
    const body = Buffer.from(text, 'utf8');
    const answer: EncodedCopies & { body: Buffer; etag: string } = { body, etag: weakEtag(body) };
    app.get(route, (req, res) => {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      sendBody(req, res, answer.body, answer.etag, { entry: answer }, contentType);
    });
  };
  // The bidder API's document, and the back office's: each has only its own operations.
  const isBackOffice = (op: Operation) => op.route.auth === 'backoffice';
  serveFixed('/openapi.json', JSON.stringify(buildOpenApiDocument(operations.filter((op) => !isBackOffice(op)))));
  serveFixed('/backoffice/openapi.json', JSON.stringify(buildBackOfficeOpenApiDocument(operations.filter(isBackOffice))));
  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const nosniff = (res: Response) => res.setHeader('X-Content-Type-Options', 'nosniff');
  app.use(
    '/docs/assets',
    compression({ threshold: 1024 }),
    express.static(swaggerDir, { index: false, maxAge: '1h', setHeaders: nosniff }),
  );
  // The reference pages, where callers type credentials: a CSP of their own, never framed, nothing kept (docs-page.ts).
  for (const [route, page] of [
    ['/docs', docsPage()],
    ['/docs/backoffice', docsPage(BACK_OFFICE_DOCS)],
  ] as const)
    serveFixed(route, page.html, 'text/html; charset=utf-8', page.headers);
  for (const page of pages) app.use(page.path, compression({ threshold: 1024 }), page.handler);

  // Searches answer 503 while the search index is away or behind; nothing else waits on it.
  const searchGate = new SearchGate(
    services.search,
    () => services.projector.status('search'),
    config.readyMaxLagSeconds ?? READY_MAX_LAG_SECONDS,
  );
  const steps = new RequestSteps({
    searchGate,
    services,
    auth,
    derivedValues,
    responseCache,
    catalogueVersion,
    backOffice,
    publicUrl: config.publicUrl ?? null,
  });
  const offLoop = ops.offLoop ?? null;
  const methodsByPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    const { operationId, method } = operation.route;
    const backOffice = operation.route.auth === 'backoffice';
    const token = operation.route.auth !== 'open' && !backOffice;
    const expressPath = toExpressPath(operation.route.path);
    const methods = methodsByPath.get(expressPath) ?? new Set();
    methods.add(method.toUpperCase());
    methodsByPath.set(expressPath, methods);

    // Every request to the operation, as a sequence of steps (src/http/request-steps.ts).
    app[method](expressPath, async (req: Request, res: Response) => {
      res.locals.operationId = operationId;
      if (backOffice) {
        // A back-office key, never an Api-Key or a bidder token; answers are the caller's own (no-store).
        const ctx = await steps.backOfficeContext(req, res);
        representationHeaders(res, null, false);
        const result = await operation.handler(parseInput(operation, req) as never, ctx as never);
        if (!(result instanceof StreamedAnswer)) sendJson(req, res, result);
        return;
      }
      if (operation.route.auth === 'link') {
        // A mail's link: its signed token, no Api-Key or bearer; answers are the member's own (no-store).
        const ctx = steps.linkContext(req, res);
        representationHeaders(res, null, false);
        if (operation.input?.form) req.body = await readFormBody(req, res, operation.input.form.maxBytes);
        sendJson(req, res, await operation.handler(parseInput(operation, req) as never, ctx as never));
        return;
      }
      // A stream ticket in the URL stands in for the headers on the operations that take one (API.md operation 63).
      const ticketCaller = await steps.ticketCaller(operation, req);
      const base: BaseContext = await steps.baseContext(req, res, ticketCaller);
      // When the answer changes by itself (a lot closing), as the handler tells it (ctx.changesAt); null: not told.
      let changesAt: number | null = null;
      const ctx = token
        ? await steps.tenantContext(
            operation,
            base,
            (time) => {
              changesAt = Math.min(changesAt ?? Number.POSITIVE_INFINITY, time);
            },
            ticketCaller,
          )
        : base;
      const shared = isShared(operation, req);
      representationHeaders(res, token ? (ctx as TenantContext).language : null, shared);
      const tenant = shared ? (ctx as TenantContext).tenant.Tenant : '';
      // The tenant's version before the answer is read: a change meanwhile leaves the answer with the older one.
      const version = shared ? steps.cacheVersion(tenant) : null;
      const cacheKey = version !== null ? responseCacheKey(ctx as TenantContext, req) : '';
      const nowMs = base.now.getTime();
      if (version !== null && steps.sendCached(req, res, cacheKey, tenant, nowMs)) return;
      const input = parseInput(operation, req) as { params: Record<string, unknown>; query: Record<string, unknown> };
      // The one auction the answer depends on, when the request names it (else the answer may: after).
      const scope = version !== null ? steps.scopeBefore(operation, input, tenant) : null;
      if (offLoop?.has(operationId) && token) {
        // The handler runs in another thread and hands back its answer's bytes, compressed as this request asks.
        const tenantCtx = ctx as TenantContext;
        // The operations run off the loop are the lot search's (app/query-thread): 503 while its index is behind.
        await searchGate.check();
        const encoding = chooseEncoding(req.headers['accept-encoding']);
        const answer = await runOffLoop(offLoop, operationId, input, tenantCtx, {
          version: catalogueVersion(tenantCtx.tenant.Tenant),
          encoding,
        });
        if (version === null) sendBody(req, res, answer.body, answer.etag, { entry: answer.copies });
        else {
          const kept = steps.keptVersion(tenant, version, scope ?? { auction: undefined, version: null });
          const entry = {
            body: answer.body,
            etag: answer.etag,
            ...answer.copies,
            ...kept,
            expires: expiresAt(nowMs, changesAt),
            operationId,
          };
          steps.sendAndKeep(req, res, cacheKey, entry);
        }
        return;
      }
      const result = await operation.handler(input as never, ctx as never);
      if (result instanceof StreamedAnswer) return;
      // Kept a while by a caller without a member token, once answered (a problem is never kept).
      if (operation.anonymousMaxAge !== undefined && token && (ctx as TenantContext).claims.kind !== 'member')
        res.setHeader('Cache-Control', `max-age=${operation.anonymousMaxAge}`);
      if (result instanceof FileAnswer) await sendFile(req, res, result);
      else if (version === null) sendJson(req, res, result);
      else {
        const kept = steps.keptVersion(tenant, version, scope ?? { auction: operation.cache?.auction?.(input, result), version: null });
        steps.sendAndKeep(req, res, cacheKey, jsonEntry(result, operationId, kept, expiresAt(nowMs, changesAt)));
      }
    });
  }

  // Unknown routes and methods: problem+json, never Express's HTML.
  app.use((req: Request, res: Response) => {
    const allowed = [...methodsByPath.entries()].find(([p]) => matchPath(p, req.path))?.[1];
    if (allowed && !allowed.has(req.method)) {
      res.setHeader('Allow', [...allowed].join(', '));
      sendProblem(res, new AppError(405, 'Method Not Allowed', `${req.method} is not allowed here.`), String(res.locals.requestId));
      return;
    }
    sendProblem(res, new NotFoundError('No such route.'), String(res.locals.requestId));
  });
  app.use(problemMiddleware(logger, services.storage));
  return app;
}

function matchPath(pattern: string, actual: string): boolean {
  const a = pattern.split('/');
  const b = actual.replace(/\/+$/, '').split('/');
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}
