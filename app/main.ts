import { loadConfig } from '../src/config.ts';
import { createLogger, drainLogs } from '../src/logger.ts';
import { GracefulShutdown } from '../src/shutdown.ts';
import { createRuntime, dataPaths } from './runtime.ts';
import { demoCredentials, seedDemo } from './seed/demo.ts';
import { listen } from '../src/http/server.ts';
import { opsApp } from '../src/http/ops.ts';
import { RoleRefusedError } from '../src/roles/singleton.ts';

/** SIGTERM and SIGINT, once the engines are open. */
let shutdown: GracefulShutdown | null = null;

/**
 * `npm start`: the service as ROLE says (default `all`: API, projectors and job worker in one process), on
 * the engines whose URLs are set and the embedded default under DATA_DIR for the others. The process that
 * runs the projectors seeds the demo data into an empty event log.
 */
async function main() {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  let runtime;
  try {
    runtime = await createRuntime(config, logger);
  } catch (error) {
    if (error instanceof RoleRefusedError) {
      process.stderr.write(`refused to start (ROLE=${config.role}): ${error.message}\n`);
      process.exit(3);
    }
    throw error;
  }
  const { services, role } = runtime;
  logger.info({ role, engines: runtime.engines.describe }, 'engines');
  // From here a signal stops the service gracefully, also while it seeds or catches up.
  const { close } = runtime;
  shutdown = new GracefulShutdown({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    background: (graceMs) => services.jobs.close(graceMs),
    stopping: runtime.stopWaiting,
    close,
    drainLogs,
  });
  shutdown.listen();

  let credentials = null;
  if (config.seedDemo && (role === 'all' || role === 'projector')) {
    credentials = demoCredentials(dataPaths(config.dataDir).demoCredentials);
    const started = Date.now();
    const result = await seedDemo(services, credentials);
    if (result.seeded) logger.info({ ms: Date.now() - started }, 'demo data imported');
  }
  const running = services.projector.running;
  if (running.length > 0) {
    const head = await services.log.headPosition();
    const caughtUp = await services.projector.waitFor(head, running, 120_000);
    if (!caughtUp) logger.warn('projections are still catching up; /readyz says when they are done');
  }

  const server = await listen(runtime.app, config.port, config.host);
  const metricsServer =
    typeof config.metrics === 'object' && runtime.metrics
      ? await listen(
          opsApp({ role, metrics: runtime.metrics, projections: () => services.projector.status() }),
          config.metrics.port,
          config.metrics.host,
        )
      : null;
  const base = `http://localhost:${config.port}`;
  const serves = role === 'all' || role === 'api';
  const lines = [
    '',
    serves
      ? `Bidder API (ROLE=${role}) listening on ${base} (data in ${config.dataDir})`
      : `Bidder ${role} running; /healthz, /readyz and /metrics on ${base}`,
    ...Object.entries(runtime.engines.describe).map(([port, engine]) => `  ${port.padEnd(14)} ${engine}`),
    ...(serves
      ? [
          `  API reference: ${base}/docs`,
          `  OpenAPI:       ${base}/openapi.json`,
          `  Back office:   ${base}/docs/backoffice (${base}/backoffice/openapi.json)`,
        ]
      : []),
  ];
  if (credentials) {
    lines.push(
      `  Demo Api-Key:          ${credentials.apiKey}`,
      `  Demo member:           ${credentials.memberEmail} / ${credentials.memberPassword}`,
      `  Demo application:      ClientId ${credentials.clientId} / ClientSecret ${credentials.clientSecret}`,
      `  Demo back-office keys: demo ${credentials.backOfficeKeys.demo} / demo2 ${credentials.backOfficeKeys.demo2}`,
      `  Tenants: demo (en, sv, de; EUR), demo2 (en; SEK), demo-closed (public access off)`,
      `  Try: curl -s -X POST ${base}/v1/tokens/anonymous -H 'Api-Key: ${credentials.apiKey}' -H 'Content-Type: application/json' -d '{"clientId":"demo"}'`,
      `  Back office: curl -s '${base}/backoffice/v1/events?limit=5' -H 'Authorization: Bearer ${credentials.backOfficeKeys.demo}'`,
    );
  }
  // The banner goes to stdout for the person who started the service; it is not a log record.
  process.stdout.write(lines.join('\n') + '\n\n');

  shutdown.track(server);
  if (metricsServer) shutdown.track(metricsServer);
}

main().catch(async (error) => {
  // Start-up cut short by a signal (the engines closed under it): the shutdown exits.
  if (shutdown?.stopping) return;
  process.stderr.write(`fatal: ${error instanceof Error ? error.stack : String(error)}\n`);
  await drainLogs(1000);
  process.exit(1);
});
