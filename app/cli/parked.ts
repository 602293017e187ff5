// `npm run parked`: what the projections and the background jobs set aside (docs/operations.md "Parked events and
// jobs"), and what an operator does with it, beside the running service.
//
//   npm run parked [-- --json]          lists them, per projection and per job name
//   npm run parked -- retry [WHAT...]   applies them again after a fix: every projection and job with something
//                                       parked, or those named (a projection, a job name, job:NAME:ID)
//   npm run parked -- skip ID           drops one for good, with a log line (PROJECTION@POSITION, or job:NAME:ID)
//   npm run parked -- unskip ID         takes a skip of an event back (it is applied at the next retry)
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { createRuntime, type Runtime } from '../runtime.ts';
import { BadInput, runTool } from '../../src/cli/tool.ts';
import { RoleRefusedError } from '../../src/roles/singleton.ts';
import type { ParkedEvent } from '../../src/ports/read-models.ts';
import type { ParkedJob } from '../../src/ports/jobs.ts';

const USAGE = 'usage: npm run parked [-- --json | retry [PROJECTION | JOB-NAME | job:NAME:ID ...] | skip ID | unskip PROJECTION@POSITION]';

/** An event's id (PROJECTION@POSITION) or a job's (job:NAME:ID). */
type Target = { kind: 'event'; projection: string; position: number } | { kind: 'job'; name: string; id: string };

export function parseTarget(text: string | undefined): Target {
  const job = /^job:([^:]+):(.+)$/.exec(text ?? '');
  if (job) return { kind: 'job', name: job[1], id: job[2] };
  const event = /^(.+)@(\d{1,16})$/.exec(text ?? '');
  if (event) return { kind: 'event', projection: event[1], position: Number(event[2]) };
  throw new BadInput(`"${text ?? ''}" names no parked event (PROJECTION@POSITION) or job (job:NAME:ID); npm run parked lists them`);
}

async function main(): Promise<number> {
  const [command = 'list', ...args] = process.argv.slice(2);
  const config = loadConfig();
  // Log lines (a skip's) on standard error; what the tool answers on standard output.
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void process.stderr.write(line) } });
  if (command === 'list' || command === '--json') return list(await open(config, logger), command === '--json' || args.includes('--json'));
  if (command === 'retry') return retry(config, logger, args);
  if (command === 'skip' || command === 'unskip') {
    const target = parseTarget(args[0]);
    return skip(await open(config, logger), command, target, logger);
  }
  throw new BadInput(USAGE);
}

/** The service's engines, as a tool beside the running service opens them (no loop, no worker, no lot index). */
function open(config: Config, logger: Logger): Promise<Runtime> {
  return createRuntime(config, logger, { background: false, role: 'api', withoutLotIndex: true });
}

async function list(runtime: Runtime, json: boolean): Promise<number> {
  try {
    const projections = await runtime.services.projector.parked.list();
    const jobs = await runtime.services.jobs.parked();
    if (json) process.stdout.write(JSON.stringify({ projections, jobs }, null, 2) + '\n');
    else process.stdout.write(describe(projections, jobs));
    return 0;
  } finally {
    await runtime.close();
  }
}

/** The listing, one line an event or job, grouped by projection and job name. */
export function describe(projections: Array<{ projection: string; events: ParkedEvent[] }>, jobs: ParkedJob[]): string {
  const lines: string[] = [];
  for (const { projection, events } of projections) {
    const count = (state: ParkedEvent['state']) => events.filter((e) => e.state === state).length;
    lines.push(`projection ${projection}: ${count('parked')} parked, ${count('held')} held, ${count('skipped')} skipped`);
    for (const e of events)
      lines.push(
        `  ${projection}@${e.position}  ${e.state}  ${e.type}  stream ${e.streamId}  house ${e.tenant}  ` +
          (e.state === 'held' ? e.error : `${e.attempts} tries  first ${e.firstAt}  last ${e.lastAt}  error: ${e.error}`),
      );
  }
  for (const name of [...new Set(jobs.map((j) => j.name))]) {
    const mine = jobs.filter((j) => j.name === name);
    lines.push(`jobs ${name}: ${mine.length} parked`);
    for (const j of mine) lines.push(`  job:${j.name}:${j.id}  ${j.attempts} tries  failed ${j.failedAt ?? '?'}  error: ${j.error}`);
  }
  return lines.length === 0 ? 'nothing parked\n' : lines.join('\n') + '\n';
}

async function skip(runtime: Runtime, command: 'skip' | 'unskip', target: Target, logger: Logger): Promise<number> {
  try {
    if (target.kind === 'job') {
      if (command === 'unskip') throw new BadInput('a removed job cannot be taken back: add it again (or replay what added it)');
      if (!(await runtime.services.jobs.removeParked(target.name, target.id)))
        throw new BadInput(`no parked job ${target.name} ${target.id} (npm run parked lists them)`);
      logger.warn({ job: target.name, jobId: target.id }, 'operator removed a parked job: it is not run');
      process.stdout.write(`removed job:${target.name}:${target.id}\n`);
      return 0;
    }
    const parked = runtime.services.projector.parked;
    const known = runtime.services.projector.projections.map((p) => p.name);
    if (!known.includes(target.projection)) throw new BadInput(`no projection ${target.projection}; projections: ${known.join(', ')}`);
    const event = await (command === 'skip' ? parked.skip : parked.unskip)
      .call(parked, target.projection, target.position)
      .catch((error: unknown) => {
        throw new BadInput(error instanceof Error ? error.message : String(error));
      });
    const held =
      (await parked.list()).find((p) => p.projection === target.projection)?.events.filter((e) => e.state === 'held').length ?? 0;
    process.stdout.write(
      `${command === 'skip' ? 'skipped' : 'parked again'} ${target.projection}@${event.position} (${event.type}, stream ${event.streamId})` +
        (held > 0 ? `; ${held} held event(s): npm run parked -- retry ${target.projection} applies them` : '') +
        '\n',
    );
    return 0;
  } finally {
    await runtime.close();
  }
}

/**
 * Retries what is named (default: everything parked). The embedded lot index lives in the memory of the running
 * service: its projection is retried, as `npm run rebuild` rebuilds it, only while no service runs.
 */
async function retry(config: Config, logger: Logger, args: string[]): Promise<number> {
  const runtime = await open(config, logger);
  let left = 0;
  let embeddedIndex: string | null = null;
  try {
    const { projector, jobs } = runtime.services;
    const names = projector.projections.map((p) => p.name);
    const counts = await projector.parked.counts();
    const parkedJobs = await jobs.parked();
    const wanted = args.length > 0 ? args : [...Object.keys(counts), ...new Set(parkedJobs.map((j) => j.name))];
    for (const what of wanted) {
      if (what.startsWith('job:')) left += await retryJobs(runtime, parkedJobs, parseTarget(what) as Extract<Target, { kind: 'job' }>);
      else if (names.includes(what)) {
        const projection = projector.get(what);
        if (projection.kind === 'search' && !config.engines.typesense) embeddedIndex = what;
        else left += report(await projector.parked.retry(what));
      } else if (parkedJobs.some((j) => j.name === what)) left += await retryJobs(runtime, parkedJobs, { kind: 'job', name: what, id: '' });
      else if (args.length > 0) throw new BadInput(`nothing parked under "${what}"; projections: ${names.join(', ')}`);
    }
  } finally {
    await runtime.close();
  }
  if (embeddedIndex) left += await retryEmbeddedIndex(config, logger, embeddedIndex);
  if (left > 0) process.stdout.write(`still parked: ${left} (npm run parked lists them)\n`);
  return left > 0 ? 1 : 0;
}

function report(outcome: Awaited<ReturnType<Runtime['services']['projector']['parked']['retry']>>): number {
  const { projection, how, before, after } = outcome;
  process.stdout.write(
    `${projection}: ${how}; was ${before.parked} parked and ${before.held} held, now ${after.parked} parked and ${after.held} held\n`,
  );
  return after.parked + after.held;
}

/** Retries the parked jobs of a name (`id` empty) or one of them; answers how many could not be. */
async function retryJobs(runtime: Runtime, parked: ParkedJob[], target: Extract<Target, { kind: 'job' }>): Promise<number> {
  const mine = parked.filter((j) => j.name === target.name && (target.id === '' || j.id === target.id));
  if (mine.length === 0) throw new BadInput(`no parked job ${target.name} ${target.id}`.trim());
  let left = 0;
  for (const job of mine) if (!(await runtime.services.jobs.retryParked(job.name, job.id))) left++;
  process.stdout.write(`jobs ${target.name}: ${mine.length - left} queued again (their tries anew)\n`);
  return left;
}

async function retryEmbeddedIndex(config: Config, logger: Logger, name: string): Promise<number> {
  let runtime: Runtime;
  try {
    runtime = await createRuntime(config, logger, { background: false, role: 'all', projectorLease: true });
  } catch (error) {
    if (!(error instanceof RoleRefusedError)) throw error;
    process.stdout.write(
      `${name} is kept in the memory of the running service (pid ${error.heldBy.pid}): stop it, then npm run parked -- retry ${name}\n`,
    );
    const tally = (await counted(config, logger))[name];
    return tally ? tally.parked + tally.held : 0;
  }
  try {
    return report(await runtime.services.projector.parked.retry(name));
  } finally {
    await runtime.close();
  }
}

async function counted(config: Config, logger: Logger) {
  const runtime = await open(config, logger);
  try {
    return await runtime.services.projector.parked.counts();
  } finally {
    await runtime.close();
  }
}

// Run as a CLI only (tsx's parked.ts or the compiled parked.js; specs import it).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) runTool('parked', main);
