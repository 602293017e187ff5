import { ConfigError, loadConfig, type Config } from '../src/config.ts';
import { createLogger, drainLogs, type Logger } from '../src/logger.ts';
import { GracefulShutdown } from '../src/shutdown.ts';
import { createRuntime, dataPaths, type Runtime } from './runtime.ts';
import { keptDemoCredentials, seedDemo } from './seed/demo.ts';
import { demoBannerLines } from './seed/demo-banner.ts';
import { listen } from '../src/http/server.ts';
import { opsApp } from '../src/http/ops-routes.ts';
import { RoleRefusedError } from '../src/roles/singleton.ts';
import cluster from 'node:cluster';
import { ApiProcesses, reportListening, stopOnRequest } from '../src/roles/api-processes.ts';

/** SIGTERM and SIGINT, once the engines are open. */
let shutdown: GracefulShutdown | null = null;

/**
 * `npm start`: the service as ROLE says (default `all`: API, projectors and job worker), on the engines whose
 * URLs are set and the embedded default under DATA_DIR for the others. The process that runs the projectors
 * seeds the demo data into an empty event log. `all` with API_PROCESSES ≥ 2 (the default `auto` on a machine
 * of several cores) is a cluster primary: it runs the projectors and jobs, and forks that many `api` processes
 * (this file again, with ROLE=api) which share PORT (src/roles/api-processes.ts).
 */
async function main() {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  const primary = cluster.isPrimary && config.role === 'all' && config.apiProcesses > 1;
  // An api process of the cluster stops when its primary asks, as on SIGTERM (at once while it starts).
  if (cluster.isWorker)
    stopOnRequest(() => {
      if (!shutdown) process.kill(process.pid, 'SIGTERM');
      else void shutdown.stop();
    });
  const seeds = config.seedDemo && (config.role === 'all' || config.role === 'projector');
  const runtime = await openRuntime(config, logger, { primary, seeds });
  const { services, role } = runtime;
  logger.info({ role, engines: runtime.engines.describe }, 'engines');
  // From here a signal stops the service gracefully, also while it seeds or catches up.
  const { close } = runtime;
  const apiProcesses = primary ? apiProcessesOf(config, logger) : null;
  shutdown = new GracefulShutdown({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    // A primary stops its api processes beside its jobs; one that did not stop cleanly makes the exit code 1.
    background: async (graceMs) => {
      const [jobs, apis] = await Promise.all([services.jobs.close(graceMs), apiProcesses?.stop(graceMs)]);
      return { abandoned: jobs.abandoned, processes: apis?.unclean };
    },
    stopping: runtime.stopWaiting,
    close,
    drainLogs,
  });
  shutdown.listen();

  const credentialsFile = dataPaths(config.dataDir).demoCredentials;
  const demo = seeds ? await seedDemoData(runtime, credentialsFile, logger) : null;
  await waitForProjections(runtime, logger);

  let server = null;
  if (apiProcesses) {
    try {
      await apiProcesses.start();
    } catch (error) {
      await shutdown.fail(error instanceof Error ? error.message : String(error));
      return;
    }
  } else server = await listen(runtime.app, config.port, config.host);
  const metricsServer = await listenForMetrics(config, runtime);
  if (cluster.isWorker) {
    // The primary prints the banner once every api process listens.
    if (server) shutdown.track(server);
    if (metricsServer) shutdown.track(metricsServer);
    reportListening();
    return;
  }
  const base = `http://localhost:${config.port}`;
  const lines = bannerLines(config, runtime, apiProcesses, base);
  if (demo) lines.push(...demoBannerLines(demo.credentials, demo.made, credentialsFile, base));
  // The banner goes to stdout for the person who started the service; it is not a log record.
  process.stdout.write(lines.join('\n') + '\n\n');

  if (server) shutdown.track(server);
  if (metricsServer) shutdown.track(metricsServer);
}

/** The runtime of ROLE; a role another process holds (its lease) ends this one with exit code 3. */
async function openRuntime(config: Config, logger: Logger, { primary, seeds }: { primary: boolean; seeds: boolean }): Promise<Runtime> {
  try {
    // The projector's loops start once the demo data is in the log (a first start's seed).
    return await createRuntime(config, logger, {
      api: !primary,
      holdProjections: seeds,
      onFatal: (reason) => (shutdown ? void shutdown.fail(reason) : logger.fatal(reason)),
    });
  } catch (error) {
    if (error instanceof RoleRefusedError) {
      process.stderr.write(`refused to start (ROLE=${config.role}): ${error.message}\n`);
      process.exit(3);
    }
    throw error;
  }
}

/** The primary's api processes: ROLE=api, each with a metrics port of its own after the primary's. */
function apiProcessesOf(config: Config, logger: Logger): ApiProcesses {
  const metricsPort = typeof config.metrics === 'object' ? config.metrics.port : null;
  return new ApiProcesses({
    count: config.apiProcesses,
    env: (slot) => ({ ROLE: 'api', ...(metricsPort !== null ? { METRICS_PORT: String(metricsPort + slot) } : {}) }),
    logger,
    giveUp: (reason) => void shutdown?.fail(reason),
  });
}

/** The demo data seeded into an empty log (with the credentials kept in DATA_DIR), then the projections started. */
async function seedDemoData(runtime: Runtime, credentialsFile: string, logger: Logger) {
  const demo = keptDemoCredentials(credentialsFile);
  const started = Date.now();
  const result = await seedDemo(runtime.services, demo.credentials);
  if (result.seeded) logger.info({ ms: Date.now() - started }, 'demo data imported');
  await runtime.startProjections();
  return demo;
}

/** Waits (up to two minutes) for this process's projections to reach the log's head before it listens. */
async function waitForProjections({ services }: Runtime, logger: Logger): Promise<void> {
  const running = services.projector.running;
  if (running.length === 0) return;
  const head = await services.log.headPosition();
  const caughtUp = await services.projector.waitFor(head, running, 120_000);
  if (!caughtUp) logger.warn('projections are still catching up; /readyz says when they are done');
}

/** Health, readiness and metrics on METRICS_PORT when it is set (and metrics are on); else null. */
async function listenForMetrics(config: Config, runtime: Runtime) {
  if (typeof config.metrics !== 'object' || !runtime.metrics) return null;
  const { services } = runtime;
  return listen(
    opsApp({
      role: runtime.role,
      maxLagSeconds: config.http.readyMaxLagSeconds,
      metrics: runtime.metrics,
      // Its own port, bound to an address of the operator's (METRICS_HOST, default 127.0.0.1): open.
      access: 'open',
      projections: () => services.projector.status(),
      ping: runtime.ping,
      storage: () => services.storage.check(),
      parked: runtime.parked,
      deliveries: runtime.deliveries ?? undefined,
    }),
    config.metrics.port,
    config.metrics.host,
  );
}

/** The start banner: where the service listens, its processes, its engines and its pages. */
function bannerLines(config: Config, runtime: Runtime, apiProcesses: ApiProcesses | null, base: string): string[] {
  const role = runtime.role;
  const serves = role === 'all' || role === 'api';
  const ops = typeof config.metrics === 'object' ? `http://${config.metrics.host}:${config.metrics.port}` : null;
  return [
    '',
    !serves
      ? `Bidder ${role} running; /healthz, /readyz and /metrics on ${base}`
      : apiProcesses
        ? `Bidder API (ROLE=${role}) listening on ${base} with ${config.apiProcesses} api processes (data in ${config.dataDir})`
        : `Bidder API (ROLE=${role}) listening on ${base} (data in ${config.dataDir})`,
    ...(apiProcesses
      ? [
          `  api processes  pids ${apiProcesses.pids.join(', ')} (API_PROCESSES; connections shared round-robin)`,
          `  this process   pid ${process.pid}: projectors and jobs; ` +
            (ops
              ? `/healthz, /readyz and /metrics on ${ops} (the api processes' on the ports after it)`
              : 'set METRICS_PORT for its /metrics'),
        ]
      : []),
    ...Object.entries(runtime.engines.describe).map(([port, engine]) => `  ${port.padEnd(14)} ${engine}`),
    ...(serves
      ? [
          `  API reference: ${base}/docs`,
          `  OpenAPI:       ${base}/openapi.json`,
          `  Back office:   ${base}/docs/backoffice (${base}/backoffice/openapi.json)`,
          // The reference bidder front end is served wherever the demo data is (SEED_DEMO).
          ...(config.seedDemo ? [`  Front end:     ${base}/demo/ (the reference bidder front end, on the demo data)`] : []),
        ]
      : []),
  ];
}

main().catch(async (error) => {
  // Start-up cut short by a signal (the engines closed under it): the shutdown exits.
  if (shutdown?.stopping) return;
  // A setting that cannot be used is one line that names it; anything else keeps its stack.
  const text = error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`fatal: ${text}\n`);
  await drainLogs(1000);
  process.exit(1);
});
