import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createRuntime } from '../app.ts';
import { progressBar } from './progress.ts';

/**
 * Rebuilds one projection from position 0 into fresh collections (or a fresh index copy) and swaps it in:
 * `npm run rebuild -- catalogue`. Safe while the service runs: reads use the old copy until the swap, and
 * the service's projector resumes from the swapped checkpoint. `npm run rebuild -- --list` names them.
 */
async function main() {
  const name = process.argv[2];
  const config = loadConfig();
  const runtime = await createRuntime(config, createLogger({ level: 'warn' }), { background: false });
  const names = runtime.services.projector.projections.map((p) => p.name);
  if (!name || name === '--list' || !names.includes(name)) {
    process.stderr.write(`usage: npm run rebuild -- <projection>\nprojections: ${names.join(', ')}\n`);
    await runtime.close();
    process.exit(name === '--list' ? 0 : 2);
  }
  const head = await runtime.services.log.headPosition();
  const bar = progressBar(`rebuild ${name}`, head);
  const started = process.hrtime.bigint();
  const result = await runtime.services.projector.rebuild(name, (position) => bar.update(position));
  bar.done();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await runtime.services.search.flush();
  await runtime.close();
  process.stdout.write(
    JSON.stringify({ projection: name, position: result.position, seconds, eventsPerSecond: Math.round(result.position / seconds) }) + '\n',
  );
}

main().catch((error) => {
  process.stderr.write(`rebuild failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
