import express, { type NextFunction, type Request, type Response } from 'express';
import compression from 'compression';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError, NotFoundError, UnsupportedMediaTypeError } from '../errors.ts';
import type { Services } from '../services.ts';
import { requestLogger } from '../logger.ts';
import type { HttpConfig } from '../config.ts';
import { Authenticator } from './auth.ts';
import type { AccessDirectory } from './directory.ts';
import { requestCommands } from '../commands.ts';
import { tenantFiles, tenantGeneratedFiles, tenantSearch } from './tenant-engines.ts';
import { hasBody, parseInput, rawQueryValue } from './input.ts';
import { JSON_BODY_LIMIT, jsonBody, refuseBody } from './request-body.ts';
import type { Metrics } from './metrics.ts';
import { mountOps } from './ops.ts';
import { negotiatedLanguage } from './language.ts';
import { catalogueFastPath, CATALOGUE_VARY, requestIdOf, SHARED_CACHE_CONTROL } from './catalogue-fast-path.ts';
import { DerivedValues } from './derived-values.ts';
import type { BaseContext, MemberContext, Operation, TenantContext } from './operation.ts';
import { problemMiddleware, sendProblem } from './problem.ts';
import { buildOpenApiDocument, docsPage } from './openapi.ts';
import { ResponseCache, weakEtag, type CachedResponse } from './response-cache.ts';
import { FileAnswer } from './file-answer.ts';
import { addVary, sendFile, sendBody, type EncodedCopies } from './send.ts';

/** How long a catalogue answer is reused when its handler does not say when it changes by itself. */
const RESPONSE_CACHE_TTL_MS = 1000;
/**
 * The longest a catalogue answer is reused when its handler says when it changes (changesAt): every read
 * model it depends on, the tenant's settings included, is in its version; this bounds what none covers.
 */
const RESPONSE_CACHE_MAX_TTL_MS = 60_000;

const toExpressPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

/** Builds the HTTP shell: every operation validated, authenticated, and answered as JSON or problem+json. */
export function buildApp(
  services: Services,
  operations: Operation[],
  config: HttpConfig,
  /**
   * The version of the projections catalogue reads come from (ProjectionVersions.of): a cached answer is used
   * while it has not moved; null, nothing is cached.
   */
  catalogueVersion: () => string | null,
  /** Api-Keys, tenants, members and applications, as the feature that keeps them answers (credential checks). */
  directory: AccessDirectory,
  /** The process's role (for /healthz, /readyz) and its metrics (null: off, or served on a port of their own). */
  ops: { role: string; metrics: Metrics | null } = { role: 'all', metrics: null },
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
  const answered = (requestId: string, operationId: string, method: string, path: string, status: number, started: number) => {
    const ms = performance.now() - started;
    ops.metrics?.observe(operationId, method, status, ms / 1000);
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
          'ETag, Content-Language, Retry-After, X-Request-Id, Allow',
        ]
      : [];

  // Catalogue answers already in the response cache, to callers already checked: before the router.
  if (responseCache) {
    app.use(
      catalogueFastPath({
        operations: operations.filter((op) => op.catalogue === true),
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
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const operationId = typeof res.locals.operationId === 'string' ? res.locals.operationId : 'none';
      answered(requestId, operationId, req.method, req.path, res.statusCode, started);
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
        res.setHeader('Access-Control-Allow-Headers', 'Api-Key, Authorization, Content-Type, Accept-Language, If-None-Match, X-Request-Id');
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
    }
    next();
  });

  // Bodies: JSON only, size-limited, except multipart uploads to the operations that take one (their
  // handlers read and limit them). A body of another type is a 415 before anything else reads it.
  const uploads = operations.filter((op) => op.upload).map((op) => ({ method: op.method.toUpperCase(), path: toExpressPath(op.path) }));
  const isUpload = (req: Request) =>
    req.is('multipart/form-data') && uploads.some((u) => u.method === req.method && matchPath(u.path, req.path));
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (hasBody(req) && !req.is('application/json') && !req.is('application/*+json') && !isUpload(req)) {
      refuseBody(req, res, JSON_BODY_LIMIT);
      next(new UnsupportedMediaTypeError());
      return;
    }
    next();
  });
  app.use(jsonBody(JSON_BODY_LIMIT));

  mountOps(app, { role: ops.role, metrics: ops.metrics, projections: () => services.projector.status() });

  const openapi = Buffer.from(JSON.stringify(buildOpenApiDocument(operations)), 'utf8');
  const openapiAnswer: EncodedCopies & { body: Buffer; etag: string } = { body: openapi, etag: weakEtag(openapi) };
  app.get('/openapi.json', (req, res) => {
    sendBody(req, res, openapiAnswer.body, openapiAnswer.etag, { entry: openapiAnswer });
  });
  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  app.use('/docs/assets', compression({ threshold: 1024 }), express.static(swaggerDir, { index: false, maxAge: '1h' }));
  const docsHtml = Buffer.from(docsPage(), 'utf8');
  const docsAnswer: EncodedCopies & { body: Buffer; etag: string } = { body: docsHtml, etag: weakEtag(docsHtml) };
  app.get('/docs', (req, res) => {
    sendBody(req, res, docsAnswer.body, docsAnswer.etag, { entry: docsAnswer }, 'text/html; charset=utf-8');
  });

  const methodsByPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    const expressPath = toExpressPath(operation.path);
    const methods = methodsByPath.get(expressPath) ?? new Set();
    methods.add(operation.method.toUpperCase());
    methodsByPath.set(expressPath, methods);

    app[operation.method](expressPath, async (req: Request, res: Response) => {
      res.locals.operationId = operation.operationId;
      const requestId = String(res.locals.requestId);
      const base: BaseContext = {
        requestId,
        ip: req.ip ?? 'unknown',
        apiKey: await auth.apiKey(req),
        auth,
        req,
        res,
        now: services.now(),
        limiter: services.limiter,
        tokens: services.tokens,
        logger,
      };
      let ctx: BaseContext | TenantContext | MemberContext = base;
      // When the answer changes by itself (a lot closing), as the handler tells it (ctx.changesAt); null: not told.
      let changesAt: number | null = null;
      if (operation.auth !== 'open') {
        const { claims, tenant } = await auth.requireToken(req, base.apiKey);
        const override = (operation.languageParam && rawQueryValue(req, operation.languageParam)) || rawQueryValue(req, 'lang');
        const id = tenant.Tenant;
        const tenantCtx: TenantContext = {
          ...base,
          claims,
          tenant,
          language: negotiatedLanguage(tenant, req.headers['accept-language'], override),
          db: services.documents.forTenant(id),
          search: tenantSearch(services.search, id),
          files: tenantFiles(services.files, id),
          generatedFiles: tenantGeneratedFiles(services.generatedFiles, id),
          commands: requestCommands(services, requestId),
          keys: services.keys,
          jobs: services.jobs,
          changesAt: (time) => {
            changesAt = Math.min(changesAt ?? Number.POSITIVE_INFINITY, time);
          },
          derived: (key, compute, stillTrue) => derivedValues.get(id, key, compute, stillTrue),
        };
        ctx = operation.auth === 'member' ? { ...tenantCtx, member: await auth.requireMember(claims) } : tenantCtx;
        res.setHeader('Content-Language', tenantCtx.language);
      }
      if (operation.auth !== 'open') addVary(res, CATALOGUE_VARY);
      // Catalogue reads carry no member data: the same URL in the same tenant and language is one answer,
      // unless this request makes it the caller's own (`personal`).
      const shared = operation.catalogue === true && !operation.personal?.(req.query as Record<string, unknown>);
      res.setHeader('Cache-Control', shared ? SHARED_CACHE_CONTROL : 'no-store');
      const version = shared && responseCache ? catalogueVersion() : null;
      const cacheKey =
        version !== null ? `${(ctx as TenantContext).tenant.Tenant}\n${(ctx as TenantContext).language}\n${req.originalUrl}` : '';
      const nowMs = base.now.getTime();
      const cached = version !== null ? responseCache!.get(cacheKey, version, nowMs) : null;
      if (cached) {
        sendBody(req, res, cached.body, cached.etag, { entry: cached, cache: responseCache! });
        return;
      }
      const input = parseInput(operation, req);
      const result = await operation.handler(input as never, ctx as never);
      if (result instanceof FileAnswer) {
        await sendFile(req, res, result);
        return;
      }
      const body = Buffer.from(JSON.stringify(result), 'utf8');
      const etag = weakEtag(body);
      if (version !== null) {
        // Kept until the handler's own horizon (changesAt) within MAX_TTL, or for DEFAULT_TTL when it names
        // none. The lifetime is spread (0.5 to 1 of it) so entries filled together do not all expire, and get
        // recomputed, in the same instant.
        const spread = 0.5 + Math.random() / 2;
        const expires =
          changesAt !== null ? Math.min(changesAt, nowMs + RESPONSE_CACHE_MAX_TTL_MS * spread) : nowMs + RESPONSE_CACHE_TTL_MS * spread;
        const entry: CachedResponse = { body, etag, version, expires, operationId: operation.operationId };
        responseCache!.set(cacheKey, entry);
        sendBody(req, res, body, etag, { entry, cache: responseCache! });
      } else sendBody(req, res, body, etag);
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
  app.use(problemMiddleware(logger));
  return app;
}

function matchPath(pattern: string, actual: string): boolean {
  const a = pattern.split('/');
  const b = actual.replace(/\/+$/, '').split('/');
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}
