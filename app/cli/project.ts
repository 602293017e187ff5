import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import cliProgress from 'cli-progress';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { openEngines, type Engines } from '../engines.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import type { DocumentProjection, Projection, ReactorDeps } from '../../src/projector/projection.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { logTenants, positionArg, resolvePosition, type PositionArg } from './positions.ts';
import { positionCodecOf } from '../runtime.ts';
import { service } from '../features/index.ts';
import { BadInput, runTool } from '../../src/cli/tool.ts';
import { typeCheck } from './typecheck.ts';

/**
 * `npm run project -- FILE [--reset] [--from POSITION] [--to POSITION] [--follow]`: replays the log into an analyst's
 * projection (one module exporting one `defineDocumentProjection`, docs/analysts.md, type-checked first) on the
 * engines the environment names, from its own checkpoint (or `--from` on a fresh one; `--reset` makes it fresh),
 * up to `--to` or the log's head, and with `--follow` on live until Ctrl-C. The replay is the projector's
 * (ProjectorRuntime.catchUpTo), page by page with the checkpoint. Exit codes: 0 done (or stopped by Ctrl-C at a
 * page boundary), 1 the projection threw (its checkpoint stays before the event), 2 bad input (nothing written).
 */

const USAGE = 'usage: npm run project -- FILE [--reset] [--from POSITION] [--to POSITION] [--follow]';

/** An event the analyst's projection threw on. */
class ProjectionFailed extends Error {
  constructor(
    readonly event: RecordedEvent,
    readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

interface Args {
  file: string;
  from?: PositionArg;
  to?: PositionArg;
  follow: boolean;
  /** Start over: its collections emptied and its checkpoint back to the start, before the replay. */
  reset: boolean;
}

/** What `--from`/`--to` take, in the words of their errors. */
const POSITION = "a position of the log (a whole number of 0 or more, or an event's Position from an export or the back office's feed)";

function parseArgs(argv: string[]): Args {
  let file: string | undefined;
  let from: PositionArg | undefined;
  let to: PositionArg | undefined;
  let follow = false;
  let reset = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--from') from = positionArg('--from', argv[++i], POSITION);
    else if (arg === '--to') to = positionArg('--to', argv[++i], POSITION);
    else if (arg === '--follow') follow = true;
    else if (arg === '--reset') reset = true;
    else if (arg.startsWith('--')) throw new BadInput(`unknown option ${arg}; ${USAGE}`);
    else if (file === undefined) file = arg;
    else throw new BadInput(`one projection module at a time (got ${file} and ${arg}); ${USAGE}`);
  }
  if (file === undefined) throw new BadInput(USAGE);
  if (from?.log != null && to?.log != null && to.log < from.log) throw new BadInput(`--to ${to.log} is before --from ${from.log}`);
  return { file, from, to, follow, reset };
}

const isProjection = (value: unknown): value is Projection =>
  typeof value === 'object' && value !== null && 'kind' in value && 'handles' in value && 'name' in value;

/** The one document projection the module exports, checked against the service's events and read models. */
async function loadProjection(file: string): Promise<DocumentProjection> {
  const resolved = path.resolve(file);
  if (!fs.existsSync(resolved)) throw new BadInput(`${file}: no such file`);
  const checked = await typeCheck(resolved);
  if (checked.skipped) process.stderr.write(`${checked.skipped}\n`);
  if (checked.errors.length > 0)
    throw new BadInput(
      `${file} does not type-check with the project's tsconfig (${checked.errors.length} error${checked.errors.length === 1 ? '' : 's'}): ${checked.errors.slice(0, 5).join('; ')}`,
    );
  let exported: Record<string, unknown>;
  try {
    exported = await import(pathToFileURL(resolved).href);
  } catch (error) {
    throw new BadInput(
      `${file} does not load: ${(error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').slice(0, 500)}`,
    );
  }
  const found = [...new Set(Object.values(exported).filter(isProjection))];
  if (found.length === 0) throw new BadInput(`${file} exports no projection (export one made with defineDocumentProjection)`);
  if (found.length > 1)
    throw new BadInput(`${file} exports ${found.length} projections (${found.map((p) => p.name).join(', ')}): one a module`);
  const projection = found[0];
  if (projection.kind !== 'documents')
    throw new BadInput(
      `${file}: ${projection.name} is a ${projection.kind} projection; only document projections (defineDocumentProjection) run here`,
    );
  const known = new Set(service.events.map((e) => e.type));
  const unknown = projection.handles.filter((type) => !known.has(type));
  if (unknown.length > 0)
    throw new BadInput(`${file}: ${projection.name} handles ${unknown.join(', ')}, not an event type of the log (docs/events.md)`);
  // The service's own projections (their reactors' dependencies are never called here).
  const own = service.projections({} as ReactorDeps);
  if (own.some((p) => p.name === projection.name))
    throw new BadInput(`${file}: the name ${projection.name} is one of the service's projections; choose another`);
  const taken = new Set(
    own.flatMap((p) => (p.kind === 'documents' ? p.collections.map((c) => c.name) : p.kind === 'search' ? [p.collection.name] : [])),
  );
  const clash = projection.collections.map((c) => c.name).filter((name) => taken.has(name));
  if (clash.length > 0) throw new BadInput(`${file}: the collection ${clash.join(', ')} is the service's own; choose another name`);
  if (projection.collections.length === 0) throw new BadInput(`${file}: ${projection.name} declares no collection`);
  return {
    ...projection,
    async apply(event, uow) {
      try {
        await projection.apply(event, uow);
      } catch (error) {
        throw new ProjectionFailed(event, error);
      }
    },
  };
}

/** A bar on a terminal (position, events/s, time left); a plain line every two seconds otherwise. */
function progress(name: string, start: number, initialHead: number) {
  const started = Date.now();
  let head = initialHead;
  let at = start;
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${name} [{bar}] {percentage}% | position {value}/{total} | {rate} events/s | ETA {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(head, start, { rate: 0 });
    return {
      head(position: number) {
        head = position;
        bar.setTotal(position);
      },
      update(position: number) {
        at = position;
        bar.update(position, { rate: Math.round((position - start) / Math.max(0.001, (Date.now() - started) / 1000)) });
      },
      stop: () => bar.stop(),
    };
  }
  let printed = 0;
  /** The last line's words: an idle `--follow` writes one line every two seconds at most, and none while nothing moves. */
  let said = '';
  const line = (force: boolean) => {
    const now = Date.now();
    if (!force && now - printed < 2000) return;
    if (`${at} ${head}` === said) return;
    printed = now;
    said = `${at} ${head}`;
    const seconds = Math.max(0.001, (now - started) / 1000);
    const rate = (at - start) / seconds;
    const left = rate > 0 && head > at ? `${Math.ceil((head - at) / rate)}s` : at >= head ? '0s' : 'unknown';
    process.stderr.write(`${name}: position ${at} of ${head}, ${Math.round(rate)} events/s, ${left} left\n`);
  };
  return {
    head(position: number) {
      head = position;
    },
    update(position: number) {
      at = position;
      line(position >= head);
    },
    stop: () => undefined,
  };
}

/** Ctrl-C or SIGTERM: the run stops at the end of its batch, and a --follow waiting for the log wakes at once. */
function stopOnSignal() {
  let stopping = false;
  let wake: (() => void) | null = null;
  return {
    get stopping() {
      return stopping;
    },
    onSignal() {
      stopping = true;
      wake?.();
    },
    /** A quarter of a second's wait for the log (a stop ends it). */
    async pause(): Promise<void> {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 250);
      });
      wake = null;
    },
  };
}

/**
 * Catches the projection up to `to` (else the log's head) with a progress bar, and with `follow` goes on following
 * the log until stopped: the position it reached.
 */
async function catchUp(
  engines: Engines,
  runtime: ProjectorRuntime,
  name: string,
  { start, to, follow }: { start: number; to: number | undefined; follow: boolean },
  stop: ReturnType<typeof stopOnSignal>,
): Promise<number> {
  const headAtStart = await engines.log.headPosition();
  const bar = progress(name, start, to === undefined ? headAtStart : Math.min(to, headAtStart));
  let position = start;
  try {
    for (;;) {
      const head = await engines.log.headPosition();
      const target = to === undefined ? head : Math.min(to, head);
      bar.head(to === undefined ? head : Math.min(to, Math.max(head, position)));
      if (target > position)
        position = await runtime.catchUpTo(name, target, { stop: () => stop.stopping, onProgress: (p) => bar.update(p) });
      bar.update(position);
      if (stop.stopping || !follow || (to !== undefined && position >= to)) break;
      await stop.pause();
    }
  } finally {
    bar.stop();
  }
  return position;
}

async function run(args: Args): Promise<number> {
  const projection = await loadProjection(args.file);
  const config = loadConfig();
  const logger = createLogger({ level: 'warn' });
  let engines: Engines | null = null;
  const stop = stopOnSignal();
  process.on('SIGINT', stop.onSignal);
  process.on('SIGTERM', stop.onSignal);
  try {
    engines = await openEngines(config, logger, 'api', { withoutLotIndex: true });
    const runtime = new ProjectorRuntime({ log: engines.log, documents: engines.documents, search: engines.search, logger }, [projection]);
    const opaque = args.from?.log === null || args.to?.log === null;
    const [codec, houses] = opaque ? [await positionCodecOf(config, engines), await logTenants(engines.log)] : [null, []];
    const asked = (arg: PositionArg | undefined) => (arg === undefined ? undefined : resolvePosition(arg, codec!, houses));
    const from = asked(args.from);
    const to = asked(args.to);
    if (from !== undefined && to !== undefined && to < from) throw new BadInput(`--to ${to} is before --from ${from}`);
    await runtime.setup();
    if (args.reset) await startOver(engines, projection, await runtime.checkpoint(projection));
    const checkpoint = await runtime.checkpoint(projection);
    if (from !== undefined && checkpoint !== 0 && checkpoint !== from)
      throw new BadInput(
        `${projection.name} has gone on to position ${checkpoint}: --from starts a fresh projection only (add --reset to start it over)`,
      );
    if (to !== undefined && checkpoint > to) throw new BadInput(`${projection.name} is already at position ${checkpoint}, past --to ${to}`);
    await runtime.setup();
    if (from !== undefined && checkpoint === 0 && from > 0)
      await engines.documents.live().commit([], { projection: projection.name, expected: 0, position: from });
    const start = await runtime.checkpoint(projection);
    const started = Date.now();
    const position = await catchUp(engines, runtime, projection.name, { start, to, follow: args.follow }, stop);
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(
      JSON.stringify({
        projection: projection.name,
        position,
        collections: projection.collections.map((c) => c.name),
        stopped: stop.stopping,
        seconds,
      }) + '\n',
    );
    return 0;
  } catch (error) {
    if (error instanceof ProjectionFailed) {
      const at = engines ? await engines.documents.getCheckpoint(projection.name).catch(() => undefined) : undefined;
      process.stderr.write(
        `\n${projection.name} failed at position ${error.event.position} on ${error.event.type}: ${error.message} (its checkpoint stays at ${at})\n`,
      );
      return 1;
    }
    throw error;
  } finally {
    process.off('SIGINT', stop.onSignal);
    process.off('SIGTERM', stop.onSignal);
    await engines?.close();
  }
}

/**
 * Starts a projection over: its checkpoint moved back to the start (with the expected one, so a run of it going on
 * elsewhere fails rather than writes on), then empty copies of its collections swapped in (the rebuild protocol's
 * swap, with nothing rebuilt).
 */
async function startOver(engines: Engines, projection: DocumentProjection, checkpoint: number): Promise<void> {
  await engines.documents.live().commit([], { projection: projection.name, expected: checkpoint, position: 0 });
  const empty = await engines.documents.startRebuild(
    projection.name,
    projection.collections.map((c) => c.name),
  );
  if (!(await empty.finish())) {
    await empty.abort();
    throw new Error(`${projection.name} moved on while it was started over (is another run of it going?)`);
  }
}

runTool('project', async () => run(parseArgs(process.argv.slice(2))));
