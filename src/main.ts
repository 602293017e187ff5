import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { createRuntime, dataPaths } from './app.ts';
import { demoCredentials, seedDemo } from './seed/demo.ts';
import { listen } from './http/server.ts';

/**
 * `npm start`: the whole service in one process on the embedded default (API, projectors, job worker),
 * with the demo data seeded into an empty DATA_DIR.
 */
async function main() {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  const runtime = await createRuntime(config, logger);
  const { services } = runtime;

  let credentials = null;
  if (config.seedDemo) {
    credentials = demoCredentials(dataPaths(config.dataDir).demoCredentials);
    const started = Date.now();
    const result = await seedDemo(services, credentials);
    if (result.seeded) logger.info({ ms: Date.now() - started }, 'demo data imported');
  }
  const head = await services.log.headPosition();
  const caughtUp = await services.projector.waitFor(head, services.projector.projections.map((p) => p.name), 120_000);
  if (!caughtUp) logger.warn('projections are still catching up; /readyz says when they are done');
  await services.documents.maintain();

  const server = await listen(runtime.app, config.port, config.host);
  const base = `http://localhost:${config.port}`;
  const lines = [
    '',
    `Bidder API listening on ${base} (data in ${config.dataDir})`,
    `  API reference: ${base}/docs`,
    `  OpenAPI:       ${base}/openapi.json`,
  ];
  if (credentials) {
    lines.push(
      `  Demo Api-Key:          ${credentials.apiKey}`,
      `  Demo member:           ${credentials.memberEmail} / ${credentials.memberPassword}`,
      `  Demo application:      ClientId ${credentials.clientId} / ClientSecret ${credentials.clientSecret}`,
      `  Tenants: demo (en, sv, de; EUR), demo2 (en; SEK), demo-closed (public access off)`,
      `  Try: curl -s -X POST ${base}/v1/tokens/anonymous -H 'Api-Key: ${credentials.apiKey}' -H 'Content-Type: application/json' -d '{"clientId":"demo"}'`,
    );
  }
  // The banner goes to stdout for the person who started the service; it is not a log record.
  process.stdout.write(lines.join('\n') + '\n\n');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close();
    server.closeIdleConnections();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  process.stderr.write(`fatal: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
