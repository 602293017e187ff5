import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createRuntime } from '../runtime.ts';
import { progressBar } from '../../src/cli/progress.ts';
import { RoleRefusedError } from '../../src/roles/singleton.ts';
import { lotSearchProjection } from '../../projections/lot-search/projection.ts';

const LOT_SEARCH = lotSearchProjection.name;

/**
 * Rebuilds one projection from position 0 into fresh collections (or a fresh index copy) and swaps it in:
 * `npm run rebuild -- catalogue`. Safe while the service runs: reads use the old copy until the swap, and
 * the service's projector resumes from the swapped checkpoint. `npm run rebuild -- --list` names them.
 */
async function main() {
  const name = process.argv[2];
  const config = loadConfig();
  const logger = createLogger({ level: 'warn' });
  // The embedded lot index lives in the memory of the process that runs the projectors: it can only be
  // rebuilt (and its snapshot written) while no such process runs. Every other projection, and the lot
  // index on Typesense, is rebuilt beside the running service and swapped in.
  const embeddedIndex = name === LOT_SEARCH && !config.engines.typesense;
  let runtime;
  try {
    runtime = await createRuntime(config, logger, {
      background: false,
      role: embeddedIndex ? 'all' : 'api',
      projectorLease: embeddedIndex,
      // Another projection's rebuild never reads the lot index: it is not loaded.
      withoutLotIndex: name !== LOT_SEARCH,
    });
  } catch (error) {
    if (!(error instanceof RoleRefusedError)) throw error;
    process.stderr.write(
      `${name} is kept in the memory of the running service (pid ${error.heldBy.pid}): stop it, rebuild, start it again. ` +
        `(With TYPESENSE_URL set, the index is rebuilt while the service runs.)\n`,
    );
    process.exit(2);
  }
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
  await runtime.close();
  process.stdout.write(
    JSON.stringify({ projection: name, position: result.position, seconds, eventsPerSecond: Math.round(result.position / seconds) }) + '\n',
  );
}

main().catch((error) => {
  process.stderr.write(`rebuild failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
