// Every declared operation's route, as the steps of request-steps.ts in order, by the credential it takes (a
// back-office key, a mail's link, or an Api-Key and maybe a bidder token); and the answer where no route is.
import type { Express, Request, Response } from 'express';
import { AppError, NotFoundError } from '../errors.ts';
import { chooseEncoding } from './compression.ts';
import { StreamedAnswer } from './event-stream.ts';
import { FileAnswer } from './file-answer.ts';
import { readFormBody } from './form-body.ts';
import { parseInput } from './input.ts';
import { runOffLoop, type OffLoopOperations } from './off-loop.ts';
import type { BaseContext, Operation, TenantContext } from './operation.ts';
import { sendProblem } from './problem.ts';
import {
  expiresAt,
  isShared,
  jsonEntry,
  representationHeaders,
  responseCacheKey,
  sendJson,
  type CatalogueVersion,
  type RequestSteps,
} from './request-steps.ts';
import { matchPath, toExpressPath } from './route-paths.ts';
import type { SearchGate } from './search-gate.ts';
import { sendBody, sendFile } from './send.ts';

/** What the routes work with (made once per app). */
export interface RouteDeps {
  steps: RequestSteps;
  /** Searches answer 503 while the search index is away or behind; nothing else waits on it. */
  searchGate: SearchGate;
  catalogueVersion: CatalogueVersion;
  /** Operations whose handler runs beside the event loop (src/http/off-loop.ts). */
  offLoop: OffLoopOperations | null;
}

/** Mounts every operation's route; returns the methods each path takes (see unknownRoute). */
export function routeOperations(app: Express, operations: Operation[], deps: RouteDeps): Map<string, Set<string>> {
  const methodsByPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    const { method, auth } = operation.route;
    const expressPath = toExpressPath(operation.route.path);
    const methods = methodsByPath.get(expressPath) ?? new Set();
    methods.add(method.toUpperCase());
    methodsByPath.set(expressPath, methods);

    // Every request to the operation, as a sequence of steps (src/http/request-steps.ts).
    if (auth === 'backoffice') app[method](expressPath, backOfficeRoute(operation, deps.steps));
    else if (auth === 'link') app[method](expressPath, linkRoute(operation, deps.steps));
    else app[method](expressPath, apiRoute(operation, auth !== 'open', deps));
  }
  return methodsByPath;
}

/** A back-office key, never an Api-Key or a bidder token; answers are the caller's own (no-store). */
function backOfficeRoute(operation: Operation, steps: RequestSteps) {
  const { operationId } = operation.route;
  return async (req: Request, res: Response) => {
    res.locals.operationId = operationId;
    const ctx = await steps.backOfficeContext(req, res);
    representationHeaders(res, null, false);
    const result = await operation.handler(parseInput(operation, req) as never, ctx as never);
    if (!(result instanceof StreamedAnswer)) sendJson(req, res, result);
  };
}

/** A mail's link: its signed token, no Api-Key or bearer; answers are the member's own (no-store). */
function linkRoute(operation: Operation, steps: RequestSteps) {
  const { operationId } = operation.route;
  return async (req: Request, res: Response) => {
    res.locals.operationId = operationId;
    const ctx = steps.linkContext(req, res);
    representationHeaders(res, null, false);
    if (operation.input?.form) req.body = await readFormBody(req, res, operation.input.form.maxBytes);
    sendJson(req, res, await operation.handler(parseInput(operation, req) as never, ctx as never));
  };
}

/**
 * The API's operations: an Api-Key (or a stream ticket) and, when `token`, a bidder token; an answer shared by the
 * tenant's callers is kept in the response cache, and an operation run off the loop answers from its thread.
 */
function apiRoute(operation: Operation, token: boolean, deps: RouteDeps) {
  const { steps, offLoop } = deps;
  const { operationId } = operation.route;
  return async (req: Request, res: Response) => {
    res.locals.operationId = operationId;
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
      const answer = await offLoopAnswer(deps, offLoop, operationId, req, input, ctx as TenantContext);
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
  };
}

/** The handler run in another thread: its answer's bytes, compressed as the request asks. */
async function offLoopAnswer(
  deps: RouteDeps,
  offLoop: OffLoopOperations,
  operationId: string,
  req: Request,
  input: unknown,
  tenantCtx: TenantContext,
) {
  // The operations run off the loop are the lot search's (app/query-thread): 503 while its index is behind.
  await deps.searchGate.check();
  const encoding = chooseEncoding(req.headers['accept-encoding']);
  return runOffLoop(offLoop, operationId, input, tenantCtx, {
    version: deps.catalogueVersion(tenantCtx.tenant.Tenant),
    encoding,
  });
}

/** Unknown routes and methods: problem+json, never Express's HTML (a 405 with Allow where the path has other methods). */
export function unknownRoute(methodsByPath: Map<string, Set<string>>) {
  return (req: Request, res: Response) => {
    const allowed = [...methodsByPath.entries()].find(([p]) => matchPath(p, req.path))?.[1];
    if (allowed && !allowed.has(req.method)) {
      res.setHeader('Allow', [...allowed].join(', '));
      sendProblem(res, new AppError(405, 'Method Not Allowed', `${req.method} is not allowed here.`), String(res.locals.requestId));
      return;
    }
    sendProblem(res, new NotFoundError('No such route.'), String(res.locals.requestId));
  };
}
