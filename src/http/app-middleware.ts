// The steps every request goes through before its route, in the order buildApp (app.ts) mounts them: its round
// trips counted, the caches made fresh, its id and log line, CORS, and the checks of its body.
import type { Express, NextFunction, Request, Response } from 'express';
import { UnsupportedMediaTypeError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { requestLogger } from '../logger.ts';
import { closeRoundTrips, countRoundTrips, newRoundTrips, requestRoundTrips, type RoundTrips } from '../round-trips.ts';
import { requestIdOf } from './catalogue-fast-path.ts';
import { isFormBody } from './form-body.ts';
import { hasBody } from './input.ts';
import type { Metrics } from './metrics.ts';
import type { Operation } from './operation.ts';
import { JSON_BODY_LIMIT, jsonBody, refuseBody } from './request-body.ts';
import { matchPath, toExpressPath } from './route-paths.ts';

/** Logs and counts an answered request (one log line per request: no bodies, tokens, keys or passwords). */
export type Answered = (
  requestId: string,
  operationId: string,
  method: string,
  path: string,
  status: number,
  started: number,
  trips?: RoundTrips | undefined,
) => void;

/** The one log line and the metrics of each answered request. */
export function answeredLog(logger: Logger, metrics: Metrics | null): Answered {
  const requestLog = requestLogger(logger);
  return (requestId, operationId, method, path, status, started, trips = requestRoundTrips()) => {
    const ms = performance.now() - started;
    metrics?.observe(operationId, method, status, ms / 1000, trips && closeRoundTrips(trips));
    requestLog.info({ reqId: requestId, method, path, status, ms }, 'request');
  };
}

/** Starts counting the request's round trips to PostgreSQL and Redis (src/round-trips.ts). */
export const startRoundTrips = (_req: Request, res: Response, next: NextFunction) =>
  countRoundTrips((res.locals.roundTrips = newRoundTrips()), next);

/** Goes on counting the request's round trips (its body came from the socket's events). */
export const resumeRoundTrips = (_req: Request, res: Response, next: NextFunction) =>
  countRoundTrips(res.locals.roundTrips as RoundTrips, next);

/**
 * Read your writes across processes: every cache (answers, credentials, derived values) is checked against
 * versions read after the request arrived, so a write another process answered is never hidden by one.
 */
export function freshCaches(fresh: () => Promise<void> | null) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const url = req.url;
    const wait = url.startsWith('/v1/') || url.startsWith('/backoffice/v1/') ? fresh() : null;
    if (wait) wait.then(() => next(), next);
    else next();
  };
}

/** The request's id (X-Request-Id, in and out), and its log line and metrics once answered. */
export function requestIdAndLog(answered: Answered) {
  return (req: Request, res: Response, next: NextFunction) => {
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
  };
}

/**
 * CORS: auction houses call the API from their own sites' pages. Credentials travel in headers (no cookies), so
 * any origin may call unless CORS_ORIGINS names the allowed ones (comma-separated).
 */
export function corsPolicy(allowedOrigins: string[]) {
  const anyOrigin = allowedOrigins.includes('*');
  /** The CORS headers of an answer to a request from the origin, as name, value, name, value (none: not allowed). */
  const headers = (origin: string | undefined): string[] =>
    origin && (anyOrigin || allowedOrigins.includes(origin))
      ? [
          'Access-Control-Allow-Origin',
          anyOrigin ? '*' : origin,
          'Access-Control-Expose-Headers',
          'ETag, Content-Language, Date, Retry-After, X-Request-Id, Allow',
        ]
      : [];
  return { anyOrigin, headers };
}

/** Sends the CORS headers, and answers a preflight request itself. */
export function corsMiddleware(policy: ReturnType<typeof corsPolicy>) {
  const { anyOrigin, headers: corsHeaders } = policy;
  return (req: Request, res: Response, next: NextFunction) => {
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
  };
}

/**
 * Bodies: JSON only, size-limited, except multipart uploads to the operations that take one (their handlers read
 * and limit them), NDJSON and forms likewise. A body of another type is a 415 before anything else reads it.
 */
export function useBodies(app: Express, operations: Operation[], countsRoundTrips: boolean): void {
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
  if (countsRoundTrips) app.use(resumeRoundTrips);
}
