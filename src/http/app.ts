import express, { type NextFunction, type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError, NotFoundError, UnsupportedMediaTypeError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { HttpConfig } from '../config.ts';
import { Authenticator } from './auth.ts';
import { hasBody, parseInput, rawQueryValue } from './input.ts';
import { negotiateLanguage } from './language.ts';
import type { BaseContext, MemberContext, Operation, TenantContext } from './operation.ts';
import { problemMiddleware, sendProblem } from './problem.ts';
import { buildOpenApiDocument, docsPage } from './openapi.ts';
import { ResponseCache, weakEtag } from './response-cache.ts';

/** The projections catalogue reads come from: a cached answer is used while they have not moved. */
const CATALOGUE_PROJECTIONS = ['catalogue', 'lot-search'];
const RESPONSE_CACHE_TTL_MS = 1000;

const BODY_LIMIT = '64kb';

const toExpressPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

/** Builds the HTTP shell: every operation validated, authenticated, and answered as JSON or problem+json. */
export function buildApp(services: Services, operations: Operation[], config: HttpConfig) {
  const app = express();
  const auth = new Authenticator(services);
  const responseCache = config.responseCache ? new ResponseCache(RESPONSE_CACHE_TTL_MS) : null;
  const logger = services.logger;
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  // ETags are computed below for operation answers (express's check skips If-None-Match on no-cache requests).
  app.set('etag', false);

  app.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info(
        {
          reqId: requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  });

  // CORS: auction houses call the API from their own sites' pages. Credentials travel in headers (no
  // cookies), so any origin may call unless CORS_ORIGINS names the allowed ones (comma-separated).
  const allowedOrigins = config.corsOrigins;
  app.use((req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origin && (allowedOrigins.includes('*') || allowedOrigins.includes(origin))) {
      res.setHeader('Access-Control-Allow-Origin', allowedOrigins.includes('*') ? '*' : origin);
      if (!allowedOrigins.includes('*')) res.append('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', 'ETag, Content-Language, Retry-After, X-Request-Id, Allow');
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

  // Bodies: JSON only, size-limited. A body of another type is a 415 before anything else reads it.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    if (hasBody(req) && !req.is('application/json') && !req.is('application/*+json')) {
      next(new UnsupportedMediaTypeError());
      return;
    }
    next();
  });
  app.use(express.json({ limit: BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const lag = await services.projector.lag();
    const ready = Object.values(lag).every((p) => p.behind <= 0 && !p.error);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'catching-up', projections: lag });
  });

  const openapi = buildOpenApiDocument(operations);
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  app.use('/docs/assets', express.static(swaggerDir, { index: false, maxAge: '1h' }));
  app.get('/docs', (_req, res) => {
    res.type('html').send(docsPage());
  });

  const methodsByPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    const expressPath = toExpressPath(operation.path);
    const methods = methodsByPath.get(expressPath) ?? new Set();
    methods.add(operation.method.toUpperCase());
    methodsByPath.set(expressPath, methods);

    app[operation.method](expressPath, async (req: Request, res: Response) => {
      const base: BaseContext = {
        services,
        requestId: String(res.locals.requestId),
        ip: req.ip ?? 'unknown',
        apiKey: await auth.apiKey(req),
        auth,
        req,
        res,
        now: services.now(),
      };
      let ctx: BaseContext | TenantContext | MemberContext = base;
      if (operation.auth !== 'open') {
        const { claims, tenant } = await auth.requireToken(req, base.apiKey);
        const override = (operation.languageParam && rawQueryValue(req, operation.languageParam)) || rawQueryValue(req, 'lang');
        const tenantCtx: TenantContext = {
          ...base,
          claims,
          tenant,
          db: services.documents.forTenant(tenant.Tenant),
          language: negotiateLanguage(tenant, req.headers['accept-language'], override),
        };
        ctx = operation.auth === 'member' ? { ...tenantCtx, member: await auth.requireMember(claims) } : tenantCtx;
        res.setHeader('Content-Language', tenantCtx.language);
      }
      if (operation.auth !== 'open') res.setHeader('Vary', 'Accept-Language, Authorization, Api-Key');
      res.setHeader('Cache-Control', operation.catalogue ? 'private, no-cache' : 'no-store');
      // Catalogue reads carry no member data: the same URL in the same tenant and language is one answer.
      const version = operation.catalogue && responseCache ? services.projector.localVersion(CATALOGUE_PROJECTIONS) : null;
      const cacheKey = version !== null ? `${(ctx as TenantContext).tenant.Tenant}\n${(ctx as TenantContext).language}\n${req.originalUrl}` : '';
      const cached = version !== null ? responseCache!.get(cacheKey, version, Date.now()) : null;
      if (cached) {
        sendBody(req, res, cached.body, cached.etag);
        return;
      }
      const input = parseInput(operation, req);
      const result = await operation.handler(input as never, ctx as never);
      const body = Buffer.from(JSON.stringify(result), 'utf8');
      const etag = weakEtag(body);
      // The lifetime is spread (0.5 to 1 TTL) so entries filled together do not all expire, and get
      // recomputed, in the same instant.
      const ttl = RESPONSE_CACHE_TTL_MS * (0.5 + Math.random() / 2);
      if (version !== null) responseCache!.set(cacheKey, { body, etag, version, expires: Date.now() + ttl });
      sendBody(req, res, body, etag);
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

/**
 * 200 with a weak ETag of the body; 304 when If-None-Match names it. RFC 9110 evaluates If-None-Match
 * whatever the request's Cache-Control says (fetch sends `no-cache` with conditional requests).
 */
function sendBody(req: Request, res: Response, body: Buffer, tag: string) {
  res.setHeader('ETag', tag);
  const ifNoneMatch = req.headers['if-none-match'];
  if ((req.method === 'GET' || req.method === 'HEAD') && ifNoneMatch) {
    const opaque = (t: string) => t.trim().replace(/^W\//, '');
    const wanted = opaque(tag);
    if (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => opaque(t) === wanted)) {
      res.status(304).end();
      return;
    }
  }
  res.status(200).type('application/json').send(body);
}

function matchPath(pattern: string, actual: string): boolean {
  const a = pattern.split('/');
  const b = actual.replace(/\/+$/, '').split('/');
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}
