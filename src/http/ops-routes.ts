// The operator's routes (/healthz, /readyz, /metrics): mounted on the API's app, or served alone by a process
// without the API, so an orchestrator checks every role alike.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import express, { type Express, type Request, type Response } from 'express';
import { NotFoundError, UnauthorizedError } from '../errors.ts';
import type { ProjectionStatus } from '../projector/status.ts';
import { boundedShared, READY_PROBE_MS } from '../roles/readiness.ts';
import type { Metrics } from './metrics.ts';
import { sendProblem } from './problem.ts';

/** What the process's projections and job queue set aside (parked), for /readyz and /metrics (`npm run parked` lists it). */
export interface ParkedSummary {
  /** Events each projection parked (its tries failed) and held behind them, for those with any. */
  projections: Record<string, { parked: number; held: number }>;
  /** Jobs parked (their tries spent), by job name, for names with any. */
  jobs: Record<string, number>;
}

/** How many events and jobs are set aside, not applied or run. */
export function parkedTotal(summary: ParkedSummary): number {
  let total = 0;
  for (const { parked, held } of Object.values(summary.projections)) total += parked + held;
  for (const count of Object.values(summary.jobs)) total += count;
  return total;
}

/** /readyz's bound when none is given: a projection further behind than this makes the process not ready. */
export const READY_MAX_LAG_SECONDS = 10;

export interface OpsSources {
  role: string;
  /** The lag (seconds) past which a projection makes the process not ready (default READY_MAX_LAG_SECONDS). */
  maxLagSeconds?: number;
  /** Projections to report in /readyz (none in a `worker`). */
  projections?: () => Promise<Record<string, ProjectionStatus>>;
  /** Whether the stores answer (the status read above already touches them when there are projections). */
  ping?: () => Promise<void>;
  /** Whether a store has no room for writes, looked at again (StorageRoom.check). */
  storage?: () => Promise<boolean>;
  /** What is parked (a process that serves with anything parked is `degraded`, still ready). */
  parked?: () => Promise<ParkedSummary>;
  /**
   * Each channel of a process that sends (`worker`, `all`): where its messages go, the messages queued for a
   * transport this process lacks, and whether the transport is up or down (channel-states.ts). Reported to the
   * operator, never a reason to be not ready (the process serves; its messages wait).
   */
  deliveries?: () => Promise<object>;
  /** Null when metrics are off or served on a port of their own. */
  metrics: Metrics | null;
  /**
   * Who reads /readyz's details and /metrics: anyone (`open`: METRICS_PORT, bound to an address of the operator's),
   * or the bearer of OPERATOR_TOKEN (PORT, which the public reaches; null: no one).
   */
  access: 'open' | { operatorToken: string | null };
}

/**
 * Why a process is not ready, or (`search-…`) serves without search: all an anonymous caller of /readyz learns
 * besides its status.
 */
type Reason = 'engines-unreachable' | 'storage-full' | 'projections-behind' | 'search-unavailable' | 'search-behind';

/**
 * What the search projections say of search: `search-unavailable` when an index cannot be read (its engine away),
 * `search-behind` when one is further behind than the bound; null while search serves. Search operations answer
 * 503 then (src/http/search-gate.ts), and the process stays ready for everything else.
 */
export function searchFault(
  projections: Record<string, ProjectionStatus>,
  maxLagSeconds: number,
): 'search-unavailable' | 'search-behind' | null {
  const search = Object.values(projections).filter((p) => p.search);
  if (search.some((p) => p.error === 'unreachable')) return 'search-unavailable';
  return search.some((p) => p.lagSeconds > maxLagSeconds) ? 'search-behind' : null;
}

/**
 * The sources with each read bounded by READY_PROBE_MS and shared by concurrent probes: an engine that accepts
 * connections and never answers makes /readyz answer 503 `engines-unreachable` within the bound, never hold it.
 */
function boundedReads(sources: OpsSources): OpsSources {
  const bound = <T>(read: (() => Promise<T>) | undefined, name: string) => read && boundedShared(read, READY_PROBE_MS, name);
  return {
    ...sources,
    ping: bound(sources.ping, 'ping'),
    projections: bound(sources.projections, 'projections'),
    storage: bound(sources.storage, 'storage'),
    parked: bound(sources.parked, 'parked'),
    deliveries: bound(sources.deliveries, 'deliveries'),
  };
}

/** Whether the request carries the operator's token: true, false (none, or another), or null (no Authorization). */
function operatorCalls(req: Request, access: OpsSources['access']): boolean | null {
  if (access === 'open') return true;
  const header = req.headers.authorization;
  if (header === undefined) return null;
  const given = /^Bearer (\S+)$/i.exec(header)?.[1];
  if (!given || access.operatorToken === null) return false;
  // Digests of equal length, compared in constant time.
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(access.operatorToken));
}

function refuseOperator(res: Response, access: OpsSources['access']): void {
  const detail =
    access !== 'open' && access.operatorToken === null
      ? 'No OPERATOR_TOKEN is set on this process: read this on METRICS_PORT, or set OPERATOR_TOKEN.'
      : "Send the operator's token: Authorization: Bearer <OPERATOR_TOKEN>.";
  sendProblem(res, new UnauthorizedError('operator-token-invalid', detail), String(res.locals.requestId ?? randomUUID()));
}

/**
 * The operator's routes, outside /v1 and without an Api-Key: /healthz (the process is up), /readyz (it can
 * serve: its stores answer and no projection is more than `maxLagSeconds` behind the log; a busy log that keeps
 * projections a moment behind is ready; with events or jobs parked it answers 200 `degraded`, their count in
 * `parked`; with the search index away or behind, 200 `degraded` with the reason `search-unavailable` or
 * `search-behind`: only search answers 503 then), /metrics (Prometheus). Every role serves them, so an orchestrator can check a `projector` or
 * `worker` as it checks an `api`. Anyone reads /readyz's status and why it is not ready; where each projection
 * stands, what is parked, and /metrics (every house's operations counted), only as `access` allows: a bearer
 * that is not the operator's token is answered 401 `operator-token-invalid`.
 */
export function mountOps(app: Express, given: OpsSources): void {
  const sources = boundedReads(given);
  app.get('/healthz', (_req: Request, res: Response) => {
    res.json({ status: 'ok', role: sources.role });
  });
  const maxLagSeconds = sources.maxLagSeconds ?? READY_MAX_LAG_SECONDS;
  app.get('/readyz', async (req: Request, res: Response) => {
    const operator = operatorCalls(req, sources.access);
    if (operator === false) return refuseOperator(res, sources.access);
    let projections: Record<string, ProjectionStatus> = {};
    let status: 'ready' | 'degraded' | 'catching-up' | 'unavailable';
    let search: ReturnType<typeof searchFault> = null;
    let parked: { parked: number; parkedBy: ParkedSummary } | object = {};
    // `engines: unreachable`: a store did not answer (PostgreSQL down or restarting): nothing can be served.
    let engines: 'reachable' | 'unreachable' = 'reachable';
    try {
      await sources.ping?.();
      projections = (await sources.projections?.()) ?? {};
      // The search index's projections degrade search alone: a search engine away or behind is no reason not to serve.
      const others = Object.values(projections).filter((p) => !p.search);
      status = others.every((p) => p.lagSeconds <= maxLagSeconds) ? 'ready' : 'catching-up';
      search = searchFault(projections, maxLagSeconds);
      if (status === 'ready' && search) status = 'degraded';
      // `degraded`: events or jobs are parked (npm run parked): the process serves (200), some read models lag for them.
      const summary = await sources.parked?.();
      if (summary) {
        parked = { parked: parkedTotal(summary), parkedBy: summary };
        if (status === 'ready' && parkedTotal(summary) > 0) status = 'degraded';
      }
    } catch {
      status = 'unavailable';
      engines = 'unreachable';
    }
    // `storage: full`: a store has no room for writes (a full disk): not ready, though reads are served and writes
    // answer 503 until room is made.
    const full = sources.storage ? await sources.storage().catch(() => null) : null;
    if (sources.storage && full === null) engines = 'unreachable';
    if (full || engines === 'unreachable') status = 'unavailable';
    const storage = full === null ? {} : { storage: full ? 'full' : 'ok' };
    const reason: Reason | null =
      engines === 'unreachable'
        ? 'engines-unreachable'
        : full
          ? 'storage-full'
          : status === 'catching-up'
            ? 'projections-behind'
            : status === 'degraded'
              ? search
              : null;
    const deliveries = operator && sources.deliveries ? await sources.deliveries().catch(() => null) : null;
    res.setHeader('Cache-Control', 'no-store');
    const serves = status === 'ready' || status === 'degraded';
    if (!serves) res.setHeader('Retry-After', '2');
    const answer = reason ? { status, reason } : { status };
    const details = {
      role: sources.role,
      engines,
      ...storage,
      ...(deliveries ? { deliveries } : {}),
      maxLagSeconds,
      ...parked,
      projections,
    };
    res.status(serves ? 200 : 503).json(operator ? { ...answer, ...details } : answer);
  });
  const metrics = sources.metrics;
  if (metrics)
    app.get('/metrics', (req: Request, res: Response) => {
      if (operatorCalls(req, sources.access) !== true) return refuseOperator(res, sources.access);
      return metrics.answer(req, res);
    });
}

/** The HTTP answers of a process without the API (`projector`, `worker`), or of metrics on their own port. */
export function opsApp(sources: OpsSources): Express {
  const app = express();
  app.disable('x-powered-by');
  if (sources.metrics) app.use(sources.metrics.middleware());
  mountOps(app, sources);
  app.use((_req: Request, res: Response) => sendProblem(res, new NotFoundError('No such route.'), randomUUID()));
  return app;
}
