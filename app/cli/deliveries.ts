import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { openEngines, type Engines } from '../engines.ts';
import { BadInput, runTool } from '../../src/cli/tool.ts';
import type { JobQueue, JobRecord, JobState } from '../../src/ports/jobs.ts';
import type { OutgoingMessage } from '../../src/ports/outbox.ts';
import { listDeliveries } from '../../src/adapters/delivery/queued-outbox.ts';
import { deliveryIdOf } from '../../src/adapters/delivery/transport.ts';
import { maskPersonalData } from '../../src/adapters/delivery/mask.ts';
import { templateOf } from '../../commands/members/deliveries.ts';

/**
 * The operator's view of mail and SMS sent through SMTP or Twilio (PRODUCTION.md "Deliveries an operator can trust"),
 * one JSON line per delivery on standard output, never an address, a number or a text:
 * - `npm run deliveries -- failed [--tenant T] [--limit N]`: deliveries that ended undelivered (refused for their
 *   recipient, or out of tries), the newest first;
 * - `npm run deliveries -- held [--tenant T] [--limit N]`: deliveries still waiting (a channel down, a retry to come);
 * - `npm run deliveries -- retry ID`: sends a failed delivery again (ID: its `deliveryId`, as the list and
 *   MessageDeliveryFailed give it); the worker takes it up.
 * Exit codes: 0 done, 1 failed, 2 bad input (an unknown or unfailed ID included).
 */

const USAGE = 'usage: npm run deliveries -- failed [--tenant T] [--limit N] | held [--tenant T] [--limit N] | retry ID';

/** Deliveries looked through for one retry, at most (the newest failed ones). */
const RETRY_SCAN = 100_000;

type Args = { what: 'failed' | 'held'; tenant: string | null; limit: number } | { what: 'retry'; id: string };

function parseArgs(argv: string[]): Args {
  const [what, ...rest] = argv;
  if (what === 'retry') {
    if (rest.length !== 1 || !/^[a-f0-9]{32}$/.test(rest[0])) throw new BadInput(`retry takes one deliveryId (32 hex digits); ${USAGE}`);
    return { what, id: rest[0] };
  }
  if (what !== 'failed' && what !== 'held') throw new BadInput(what === undefined ? USAGE : `unknown command "${what}"; ${USAGE}`);
  let tenant: string | null = null;
  let limit = 1000;
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]];
    if (flag === '--tenant' && value && /^[a-z0-9][a-z0-9-]{0,62}$/.test(value)) tenant = value;
    else if (flag === '--limit' && value && /^\d{1,6}$/.test(value) && Number(value) >= 1) limit = Number(value);
    else throw new BadInput(`${flag} ${value ?? ''}`.trim() + ` is not understood; ${USAGE}`);
  }
  return { what, tenant, limit };
}

/** One delivery as the operator reads it: who and what, never the address, number or text. */
function line(job: JobRecord) {
  const message = job.data as OutgoingMessage;
  const progress = job.progress as { refused?: { reason: string; at: string } } | null;
  return {
    deliveryId: deliveryIdOf(message),
    tenant: message.tenant,
    memberId: message.memberId ?? null,
    channel: message.channel,
    template: templateOf(message.kind),
    state: job.state,
    reason: progress?.refused?.reason ?? (job.state === 'failed' ? 'gave-up' : null),
    // A failed delivery that did not end on purpose (its worker failed out of its tries): also in `npm run parked`.
    parked: job.state === 'failed' && !job.failedForGood,
    tries: job.attemptsMade,
    lastError: job.error === null ? null : maskPersonalData(job.error),
    createdAt: job.createdAt.toISOString(),
    at: job.at?.toISOString() ?? null,
  };
}

const HELD: readonly JobState[] = ['waiting', 'active', 'delayed'];

async function list(jobs: JobQueue, args: Extract<Args, { what: 'failed' | 'held' }>): Promise<number> {
  const found = await listDeliveries(jobs, args.what === 'failed' ? ['failed'] : HELD, args.tenant ? RETRY_SCAN : args.limit);
  const lines = found.filter((job) => !args.tenant || (job.data as OutgoingMessage).tenant === args.tenant).slice(0, args.limit);
  for (const job of lines) process.stdout.write(JSON.stringify(line(job)) + '\n');
  process.stderr.write(`${lines.length} ${args.what} deliver${lines.length === 1 ? 'y' : 'ies'}\n`);
  return 0;
}

async function retry(jobs: JobQueue, deliveryId: string): Promise<number> {
  const failed = await listDeliveries(jobs, ['failed'], RETRY_SCAN);
  const job = failed.find((j) => deliveryIdOf(j.data as OutgoingMessage) === deliveryId);
  if (!job) throw new BadInput(`no failed delivery ${deliveryId} (npm run deliveries -- failed lists them)`);
  if (!(await jobs.retry(job.name, job.id))) throw new BadInput(`delivery ${deliveryId} is not failed any more`);
  process.stdout.write(JSON.stringify({ retried: deliveryId, tenant: (job.data as OutgoingMessage).tenant }) + '\n');
  return 0;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const config = loadConfig();
  const logger = createLogger({ level: 'warn' });
  let engines: Engines | null = null;
  try {
    engines = await openEngines(config, logger, 'api', { withoutLotIndex: true });
    return args.what === 'retry' ? await retry(engines.jobs, args.id) : await list(engines.jobs, args);
  } finally {
    await engines?.close();
  }
}

runTool('deliveries', main);
