// The operator's routes (/healthz, /readyz, /metrics): mounted on the API's app, or served alone by a process
// without the API, so an orchestrator checks every role alike.
import express, { type Express, type Request, type Response } from 'express';
import type { ProjectionStatus } from '../projector/status.ts';
import type { Metrics } from './metrics.ts';

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
  /** Null when metrics are off or served on a port of their own. */
  metrics: Metrics | null;
  /**
   * The delivery channels of a process that sends mail and SMS (the worker, `all`), up or down: said in the body,
   * never a reason to answer 503 (the process serves; its messages wait for the channel).
   */
  deliveries?: () => Record<string, { state: 'up' | 'down'; about?: string; since?: string }>;
}

/**
 * The operator's routes, outside /v1 and without an Api-Key: /healthz (the process is up), /readyz (it can
 * serve: its stores answer and no projection is more than `maxLagSeconds` behind the log; a busy log that keeps
 * projections a moment behind is ready, and where each stands is in the body and /metrics), /metrics
 * (Prometheus). Every role serves them, so an orchestrator can check a `projector` or `worker` as it checks an `api`.
 */
export function mountOps(app: Express, sources: OpsSources): void {
  app.get('/healthz', (_req: Request, res: Response) => {
    res.json({ status: 'ok', role: sources.role });
  });
  const maxLagSeconds = sources.maxLagSeconds ?? READY_MAX_LAG_SECONDS;
  app.get('/readyz', async (_req: Request, res: Response) => {
    let projections: Record<string, ProjectionStatus> = {};
    let status: 'ready' | 'catching-up' | 'unavailable';
    // `engines: unreachable`: a store did not answer (PostgreSQL down or restarting): nothing can be served.
    let engines: 'reachable' | 'unreachable' = 'reachable';
    try {
      await sources.ping?.();
      projections = (await sources.projections?.()) ?? {};
      status = Object.values(projections).every((p) => p.lagSeconds <= maxLagSeconds) ? 'ready' : 'catching-up';
    } catch {
      status = 'unavailable';
      engines = 'unreachable';
    }
    // `storage: full`: a store has no room for writes (a full disk): not ready, though reads are served and writes
    // answer 503 until room is made.
    const full = sources.storage ? await sources.storage() : null;
    if (full) status = 'unavailable';
    const storage = full === null ? {} : { storage: full ? 'full' : 'ok' };
    res.setHeader('Cache-Control', 'no-store');
    if (status !== 'ready') res.setHeader('Retry-After', '2');
    const deliveries = sources.deliveries ? { deliveries: sources.deliveries() } : {};
    res
      .status(status === 'ready' ? 200 : 503)
      .json({ status, role: sources.role, engines, ...storage, ...deliveries, maxLagSeconds, projections });
  });
  const metrics = sources.metrics;
  if (metrics) app.get('/metrics', (req: Request, res: Response) => metrics.answer(req, res));
}

/** The HTTP answers of a process without the API (`projector`, `worker`), or of metrics on their own port. */
export function opsApp(sources: OpsSources): Express {
  const app = express();
  app.disable('x-powered-by');
  if (sources.metrics) app.use(sources.metrics.middleware());
  mountOps(app, sources);
  app.use((_req: Request, res: Response) => {
    res
      .status(404)
      .type('application/problem+json')
      .json({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'No such route.' });
  });
  return app;
}
