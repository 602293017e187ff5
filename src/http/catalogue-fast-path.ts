// Catalogue answers already in the response cache, sent before the router to callers already checked: the
// hottest pages skip routing, context building and validation, with the same headers and bytes as the route.
import { randomUUID } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';
import type { NextFunction, Request, Response } from 'express';
import type { Authenticator } from './auth.ts';
import { chooseEncoding, COMPRESS_THRESHOLD, encode, type Encoding } from './compression.ts';
import { languageOverride } from './input.ts';
import { negotiatedLanguage } from './language.ts';
import type { Operation } from './operation.ts';
import type { CachedResponse, ResponseCache } from './response-cache.ts';
import { notModified } from './send.ts';

/** The `Vary` of a catalogue answer (before `Accept-Encoding`, which answers over 1 KB add). */
export const CATALOGUE_VARY = 'Accept-Language, Authorization, Api-Key';
/** The `Cache-Control` of a catalogue answer shared through the response cache. */
export const SHARED_CACHE_CONTROL = 'private, no-cache';

export interface FastPathDeps {
  /** The catalogue operations (those whose answers the response cache keeps). */
  operations: Operation[];
  cache: ResponseCache;
  auth: Authenticator;
  /** The version of the projections catalogue answers are read from, by tenant and auction (null: nothing to compare against). */
  version: (tenant: string, auction?: number) => string | null;
  now: () => number;
  /** CORS headers for a request's Origin (name, value pairs; empty when there is none or it is not allowed). */
  cors: (origin: string | undefined) => string[];
  /** Logs and counts an answered request. */
  answered: (requestId: string, operationId: string, method: string, path: string, status: number, started: number) => void;
}

/**
 * The path of a request to a catalogue read whose answer is already in the response cache: the same
 * answer the operation's route would send (same headers, same bytes, 304 on a matching If-None-Match), with
 * none of the work that depends only on that answer. The caller must be one whose Api-Key and token passed
 * every check and are not due to be checked again (Authenticator.knownCaller); the language is negotiated
 * as the route does; the route is found by the operation's own path. Whatever this path cannot answer that
 * way (another route, a body, an unknown caller, no cached answer, an answer the caller makes their own)
 * goes on to the router and the operation, unchanged.
 */
export function catalogueFastPath(deps: FastPathDeps) {
  const routes = routeTable(deps.operations);
  return (req: Request, res: Response, next: NextFunction) => {
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || hasBody(req)) return next();
    const started = performance.now();
    const url = req.url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const operation = routes(path);
    if (!operation) return next();
    // Credentials are checked against the real clock (as Authenticator does), answers against the service's.
    const caller = deps.auth.knownCaller(req.headers['api-key'], req.headers.authorization);
    // (An answer the caller makes their own, CachePolicy.personal, is never kept: no entry is found for its URL.)
    if (!caller) return next();
    // The override the route reads (both names contain "lang"), from the URL with the parser Express's `simple`
    // query setting uses: this path runs before Express gives the request its `query`.
    const override = q >= 0 && LANG.test(url) ? languageOverride(parseQuery(url.slice(q + 1)), operation.input?.languageParam) : undefined;
    const language = negotiatedLanguage(caller.tenant, req.headers['accept-language'], override);
    const tenant = caller.tenant.Tenant;
    if (deps.version(tenant) === null) return next();
    const entry = deps.cache.peek(`${tenant}\n${language}\n${url}`, (auction) => deps.version(tenant, auction), deps.now());
    if (!entry || entry.operationId !== operation.route.operationId) return next();
    deps.cache.served();

    const requestId = requestIdOf(req);
    const origin = req.headers.origin;
    const cors = origin === undefined ? NONE : deps.cors(origin);
    const large = entry.body.length > COMPRESS_THRESHOLD;
    // The CORS middleware adds `Vary: Origin` first when it names allowed origins one by one.
    const vary = cors.length > 0 && cors[1] !== '*' ? `Origin, ${varyOf(large)}` : varyOf(large);
    if (notModified(req, entry.etag)) {
      res.writeHead(304, wire(entry, 'notModified', language).concat('Vary', vary, 'X-Request-Id', requestId, cors));
      res.end();
      deps.answered(requestId, operation.route.operationId, method, path, 304, started);
      return;
    }
    const encoding: Encoding = large ? chooseEncoding(req.headers['accept-encoding']) : 'identity';
    let bytes = entry.body;
    if (encoding !== 'identity') {
      let encoded = entry[encoding];
      if (!encoded) deps.cache.addEncoding(entry, encoding, (encoded = encode(entry.body, encoding)));
      bytes = encoded;
    }
    res.writeHead(200, wire(entry, encoding, language, bytes.length).concat('Vary', vary, 'X-Request-Id', requestId, cors));
    res.end(method === 'HEAD' ? undefined : bytes);
    deps.answered(requestId, operation.route.operationId, method, path, 200, started);
  };
}

const NONE: string[] = [];
const LANG = /lang/i;
const VARY = { small: CATALOGUE_VARY, large: `${CATALOGUE_VARY}, Accept-Encoding` };
const varyOf = (large: boolean) => (large ? VARY.large : VARY.small);

/** The request's own id when it sends a usable one (as the request log middleware takes it), else a new one. */
export function requestIdOf(req: Request): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
}

/** The headers an entry is answered with, for one encoding or a 304, made once and kept with the entry. */
function wire(entry: CachedResponse, kind: Encoding | 'notModified', language: string, length = 0): string[] {
  const wires = (entry.wire ??= {});
  let headers = wires[kind];
  if (!headers) {
    headers = ['Content-Language', language, 'Cache-Control', SHARED_CACHE_CONTROL, 'ETag', entry.etag];
    if (kind !== 'notModified') {
      headers.push('Content-Type', 'application/json; charset=utf-8');
      if (kind !== 'identity') headers.push('Content-Encoding', kind);
      headers.push('Content-Length', String(length));
    }
    wires[kind] = headers;
  }
  return headers;
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Finds the operation of a request path among the given operations, by their OpenAPI paths taken
 * literally (`/v1/lots/{id}` matches `/v1/lots/17`): exact paths first, then templates in the order
 * given. A path written another way (a trailing slash, other letter case) finds none and takes the router.
 */
export function routeTable(operations: Operation[]): (path: string) => Operation | undefined {
  const exact = new Map<string, Operation>();
  const templates: Array<{ pattern: RegExp; operation: Operation }> = [];
  for (const operation of operations) {
    const path = operation.route.path;
    if (!path.includes('{')) {
      if (!exact.has(path)) exact.set(path, operation);
      continue;
    }
    const source = path
      .split(/(\{\w+\})/)
      .map((part) => (/^\{\w+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    templates.push({ pattern: new RegExp(`^${source}$`), operation });
  }
  return (path) => {
    const found = exact.get(path);
    if (found) return found;
    for (const t of templates) if (t.pattern.test(path)) return t.operation;
    return undefined;
  };
}
