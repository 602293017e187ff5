// Runs a command on its stream: fold, decide, append with the expected revision; batched per stream and decided again after a conflict.
import { type AppendResult, type EventLog, type NewEvent, WrongExpectedVersionError } from './ports/event-log.ts';
import type { AnyEvent } from './events/define.ts';
import type { CommandResult, Decider } from './decider.ts';
import { PayloadTooLargeError, WriteContentionError } from './errors.ts';

/** A stream folded into a decider's state (for reads on the command side, which never use read models). */
export async function foldStream<State, Event extends AnyEvent>(
  log: EventLog,
  streamId: string,
  decider: Pick<Decider<State, unknown, Event>, 'events' | 'initialState' | 'evolve'>,
): Promise<State> {
  let state = decider.initialState();
  for (const event of await log.readStream(streamId)) state = decider.evolve(state, decider.events.read(event));
  return state;
}

/** Folded state of recently used streams, per log and decider: a command then reads only the events appended since. */
const STATE_CACHE_SIZE = 10_000;
/** The most commands of one stream decided together and appended in one append. */
const MAX_BATCH = 500;
/**
 * The most bytes of events in one append: EventStoreDB refuses an append over its MaxAppendSize (1,048,576
 * bytes by default), less a margin. A batch ends before the command that would take it past this; a command
 * whose events alone take more is refused (413), on every engine alike.
 */
export const MAX_APPEND_BYTES = 1_048_576 - 16 * 1024;
/** Per event, room for the keys an adapter adds to the metadata (EventStoreDB's: schema version, correlation). */
const EVENT_OVERHEAD_BYTES = 64;

/**
 * An event's bytes in an append, at least as EventStoreDB counts them (Event.SizeOnDisk: data, metadata, and
 * twice the type's length), with the correlation id counted twice since that adapter copies it.
 */
export function appendBytes(event: NewEvent): number {
  const json = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  return json(event.data) + json(event.metadata) + json(event.metadata.correlationId) + event.type.length * 2 + EVENT_OVERHEAD_BYTES;
}
const stateCaches = new WeakMap<EventLog, WeakMap<object, Map<string, { state: unknown; revision: number }>>>();
/** Streams of a log that met a conflict lately (by when): their state is copied before deciding (Decider.copy). */
const contended = new WeakMap<EventLog, Map<string, number>>();
/** How long a stream counts as contended after its last conflict. */
const CONTENDED_MS = 10_000;

/** The revision this process's last append left each stream at (any decider), for the STATE_CACHE_SIZE streams written last. */
const written = new WeakMap<EventLog, Map<string, number>>();

function lastWritten(log: EventLog): Map<string, number> {
  let map = written.get(log);
  if (!map) written.set(log, (map = new Map()));
  return map;
}

function wrote(log: EventLog, streamId: string, revision: number): void {
  const map = lastWritten(log);
  map.delete(streamId);
  map.set(streamId, revision);
  if (map.size > STATE_CACHE_SIZE) map.delete(map.keys().next().value as string);
}

function contentionOf(log: EventLog): Map<string, number> {
  let map = contended.get(log);
  if (!map) contended.set(log, (map = new Map()));
  return map;
}

function cacheOf(log: EventLog, decider: object) {
  let byDecider = stateCaches.get(log);
  if (!byDecider) stateCaches.set(log, (byDecider = new WeakMap()));
  let cache = byDecider.get(decider);
  if (!cache) byDecider.set(decider, (cache = new Map()));
  return cache;
}

/**
 * How long a command goes on deciding again after conflicts (from when it was asked for) before it gives up
 * with a 503: long enough for hundreds of tries past a burst of writers, well under clients' timeouts.
 */
export const CONFLICT_BUDGET_MS = 2000;
/** Backoff between tries after a conflict: a random wait below base × 2^(conflicts − 1), capped (full jitter). */
const BACKOFF_BASE_MS = 5;
const BACKOFF_CAP_MS = 100;

/**
 * How a command retries after conflicts. Defaults: CONFLICT_BUDGET_MS, the real clock, Math.random; tests
 * inject a shorter budget or a fake clock.
 */
export interface ConflictRetry {
  /** Time from the command's call after which a conflict is no longer retried. */
  budgetMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1): the share of the backoff window waited. */
  random?: () => number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A command waiting for its stream. */
interface Queued {
  decider: Decider<unknown, unknown, AnyEvent, unknown>;
  command: unknown;
  correlationId?: string;
  /** Tries made so far (a conflict ends a try). */
  tries: number;
  /** At most this many tries, when the caller said so (the budget bounds them anyway). */
  maxTries: number;
  /** After a conflict at or past this instant (its clock's), the command gives up. */
  deadline: number;
  retry: Required<ConflictRetry>;
  resolve: (result: CommandResult<AnyEvent, unknown>) => void;
  reject: (error: unknown) => void;
}

/** Commands waiting per log and stream; a stream has an entry while its commands are being run. */
const queues = new WeakMap<EventLog, Map<string, Queued[]>>();

/**
 * Loads the stream, folds it into state, decides, and appends with the expected revision. A concurrent
 * append to the same stream (another process) makes the append fail; the command is then decided again on
 * the new state (the stream read again), after a short random wait (so two writers do not keep colliding in
 * lockstep), until its budget (CONFLICT_BUDGET_MS from the call, or `retry.budgetMs`) is spent: it then fails
 * with a WriteContentionError (503, Retry-After) and nothing of it is appended. Two commands can never both
 * win on stale state. On a log that can decide under its write lock (EventLog.appendDecided), a stream that met
 * a conflict in the last CONTENDED_MS is decided there instead: the other writers' events are read inside the
 * appending transaction, and there is no conflict left to retry.
 *
 * Commands on one stream run one batch at a time in this process: those that arrive while a batch is being
 * appended wait, and are then decided together, one after another on the state each leaves for the next,
 * and appended in one append (group commit: one transaction for them all), up to MAX_BATCH commands and
 * MAX_APPEND_BYTES of events (the rest wait for the next append). A command whose decision fails fails alone; when the append meets a stale revision, the whole batch is decided again on the new state,
 * since each was decided on the one before it (joined by the commands of the same decider that arrived
 * meanwhile, after it in line).
 *
 * The folded state of a stream is kept (bounded, per decider) with its revision, so the next command reads
 * only newer events, and none while that revision is the one this process's last append left the stream at and
 * no other writer met the stream lately (the append's expected revision checks it); `evolve` may therefore
 * update the state in place, and must not share it between streams.
 */
export function runCommand<State, Command, Event extends AnyEvent, View = undefined>(
  log: EventLog,
  streamId: string,
  decider: Decider<State, Command, Event, View>,
  command: Command,
  options: { correlationId?: string; attempts?: number; retry?: ConflictRetry } = {},
): Promise<CommandResult<Event, View>> {
  return new Promise<CommandResult<Event, View>>((resolve, reject) => {
    let byStream = queues.get(log);
    if (!byStream) queues.set(log, (byStream = new Map()));
    const retry: Required<ConflictRetry> = {
      budgetMs: options.retry?.budgetMs ?? CONFLICT_BUDGET_MS,
      now: options.retry?.now ?? Date.now,
      sleep: options.retry?.sleep ?? realSleep,
      random: options.retry?.random ?? Math.random,
    };
    const item: Queued = {
      decider: decider as unknown as Queued['decider'],
      command,
      correlationId: options.correlationId,
      tries: 0,
      maxTries: options.attempts ?? Number.POSITIVE_INFINITY,
      deadline: retry.now() + retry.budgetMs,
      retry,
      resolve: resolve as Queued['resolve'],
      reject,
    };
    const waiting = byStream.get(streamId);
    if (waiting) {
      waiting.push(item);
      return;
    }
    const queue = [item];
    byStream.set(streamId, queue);
    // From the next microtask, so that commands asked for together go in one batch.
    queueMicrotask(() => void drain(log, streamId, queue, byStream!));
  });
}

async function drain(log: EventLog, streamId: string, queue: Queued[], byStream: Map<string, Queued[]>) {
  try {
    while (queue.length > 0) {
      // One decider per batch (a stream's state is folded per decider).
      const decider = queue[0].decider;
      const batch = queue.splice(0, sameDecider(queue, decider, MAX_BATCH));
      try {
        await runBatch(log, streamId, decider, batch, queue);
      } catch (error) {
        // A decider that fails outside decide (initialState, evolve): its commands fail, the stream goes on.
        // (`batch` is the batch as it stands; rejecting a command already answered does nothing.)
        for (const item of batch) item.reject(error);
      }
    }
  } finally {
    byStream.delete(streamId);
  }
}

/** How many commands at the head of the queue (at most `max`) are of this decider. */
function sameDecider(queue: Queued[], decider: Queued['decider'], max: number): number {
  let n = 0;
  while (n < queue.length && n < max && queue[n].decider === decider) n++;
  return n;
}

/** The wait before the next try after `conflicts` conflicts in a row: random, below a window that doubles. */
function backoffMs(conflicts: number, random: () => number): number {
  return random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (conflicts - 1));
}

/** Runs a batch to its end; `batch` is updated in place (commands given up on leave it, latecomers join it). */
async function runBatch(log: EventLog, streamId: string, decider: Queued['decider'], batch: Queued[], queue: Queued[]): Promise<void> {
  const cache = cacheOf(log, decider);
  const remember = (s: unknown, r: number) => {
    cache.set(streamId, { state: s, revision: r });
    if (cache.size > STATE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  };
  let conflicts = 0;
  // Set when a batch decided on a kept state (not read) appends nothing: no expected revision checks that state.
  let mustRead = false;
  for (;;) {
    // A stream other writers append to as well, on a log that can decide under its write lock: no more conflicts.
    if (log.appendDecided && contendedLately(log, streamId)) return runLocked(log, streamId, decider, batch, queue, remember);
    // The cached state is taken out while deciding (evolve may change it in place): after a conflict it is
    // gone, and the stream is read again from its start.
    const cached = cache.get(streamId);
    cache.delete(streamId);
    let state = cached ? cached.state : decider.initialState();
    let revision = cached ? cached.revision : -1;
    const unread = !mustRead && cached !== undefined && lastWritten(log).get(streamId) === revision && !contendedLately(log, streamId);
    mustRead = false;
    try {
      // A kept state at the revision this process last appended, on a stream no other writer met lately, is
      // taken as the stream's (no read): the append's expected revision checks it, a conflict reads it again.
      if (!unread)
        for (const event of await log.readStream(streamId, { fromRevision: revision + 1 })) {
          state = decider.evolve(state, decider.events.read(event));
          revision = event.revision;
        }
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    // A stream other writers append to as well: the state as the stream stands, kept for the next try.
    const before = decider.copy && contendedLately(log, streamId) ? { state: decider.copy(state), revision } : null;
    // Each decided on the state the ones before it leave. evolve may change the state in place, so a state
    // that took events is remembered only once they are appended (else the next try reads the stream again).
    const decided = decideBatch(decider, batch, queue, state);
    state = decided.state;
    const { outcomes, toAppend } = decided;
    if (toAppend.length === 0) {
      remember(state, revision);
      // Nothing appended, so nothing checked the kept state (another process may have written since): decided
      // again on the stream as it is (a no-op or a refusal on a stale state would be a wrong answer).
      if (unread) {
        mustRead = true;
        continue;
      }
      batch.forEach((item, i) => settle(item, outcomes[i], 0));
      return;
    }
    let appended: { nextExpectedRevision: number; position: number };
    try {
      appended = await log.appendToStream(streamId, toAppend, { expectedRevision: revision === -1 ? 'no_stream' : revision });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        // Every command of the batch was decided on a state that is no longer the stream's: nothing of the
        // batch was appended. Those past their budget (or tries) give up; the others are decided again, after
        // a random wait, on the stream as it then is (read onto the state before the batch, when it was kept).
        conflicts++;
        if (before) remember(before.state, before.revision);
        markContended(log, streamId);
        if (await afterConflict(streamId, decider, batch, queue, conflicts)) continue;
        return;
      }
      failAppend(batch, outcomes, queue, error);
      return;
    }
    remember(state, appended.nextExpectedRevision);
    wrote(log, streamId, appended.nextExpectedRevision);
    batch.forEach((item, i) => settle(item, outcomes[i], appended.position));
    return;
  }
}

/**
 * After the batch's `conflicts`-th conflict: the commands past their budget (or tries) give up, the others wait (a
 * random backoff, within their deadlines) and are the batch again, with latecomers of the decider after them.
 * False when none is left to try.
 */
async function afterConflict(
  streamId: string,
  decider: Queued['decider'],
  batch: Queued[],
  queue: Queued[],
  conflicts: number,
): Promise<boolean> {
  const again: Queued[] = [];
  for (const item of batch) {
    if (item.retry.now() >= item.deadline || item.tries >= item.maxTries) item.reject(new WriteContentionError(streamId, item.tries));
    else again.push(item);
  }
  if (again.length === 0) {
    batch.length = 0;
    return false;
  }
  const first = again[0].retry;
  const untilDeadline = Math.min(...again.map((item) => item.deadline - item.retry.now()));
  await first.sleep(Math.max(0, Math.min(backoffMs(conflicts, first.random), untilDeadline)));
  // Commands of this decider that arrived meanwhile join the batch, after it (they came later).
  const joining = queue.splice(0, sameDecider(queue, decider, MAX_BATCH - again.length));
  batch.length = 0;
  batch.push(...again, ...joining);
  return true;
}

/**
 * A batch decided under the log's write lock (EventLog.appendDecided): the other writers' events since the
 * cached state are read inside the appending transaction, so the batch is decided once and never conflicts.
 * The stream stays marked contended while other writers keep appending to it.
 */
async function runLocked(
  log: EventLog,
  streamId: string,
  decider: Queued['decider'],
  batch: Queued[],
  queue: Queued[],
  remember: (state: unknown, revision: number) => void,
): Promise<void> {
  const cache = cacheOf(log, decider);
  const cached = cache.get(streamId);
  // Taken out while deciding: a failed transaction leaves it half evolved, and the stream is then read from its start.
  cache.delete(streamId);
  let state = cached ? cached.state : decider.initialState();
  let revision = cached ? cached.revision : -1;
  try {
    // Not held: the stream read up to now outside the lock, so that the transaction reads only what came since.
    if (!cached)
      for (const event of await log.readStream(streamId)) {
        state = decider.evolve(state, decider.events.read(event));
        revision = event.revision;
      }
  } catch (error) {
    for (const item of batch) item.reject(error);
    return;
  }
  const done: { decided?: Decided; othersWrote?: boolean } = {};
  let appended: AppendResult;
  try {
    appended = await log.appendDecided!(streamId, revision + 1, (newer) => {
      for (const event of newer) {
        state = decider.evolve(state, decider.events.read(event));
        revision = event.revision;
      }
      done.othersWrote = newer.length > 0;
      done.decided = decideBatch(decider, batch, queue, state);
      return done.decided.toAppend;
    });
  } catch (error) {
    // Nothing was appended (the transaction failed, or evolve did): every command of the batch fails with the
    // error, also one that decided nothing (it was decided in the transaction, and deciding it again would take
    // the lock again, as long as the log fails).
    for (const item of batch) item.reject(error);
    return;
  }
  if (!done.decided) throw new Error(`the log appended to ${streamId} without deciding`);
  const { outcomes, state: after } = done.decided;
  if (done.othersWrote) markContended(log, streamId);
  remember(after, appended.nextExpectedRevision);
  wrote(log, streamId, appended.nextExpectedRevision);
  batch.forEach((item, i) => settle(item, outcomes[i], appended.position));
}

/** What a batch decided: each command's outcome, the state they leave, and their events to append. */
interface Decided {
  state: unknown;
  outcomes: Outcome[];
  toAppend: NewEvent[];
}

/**
 * Decides the batch's commands one after another on the state each leaves for the next, up to MAX_APPEND_BYTES
 * of events (the commands past it go back first in line, out of `batch`). A decision that fails fails alone.
 */
function decideBatch(decider: Queued['decider'], batch: Queued[], queue: Queued[], initial: unknown): Decided {
  let state = initial;
  const outcomes: Outcome[] = [];
  const toAppend: NewEvent[] = [];
  let bytes = 0;
  for (let i = 0; i < batch.length; i++) {
    const item = batch[i];
    item.tries++;
    try {
      const events = decider.decide(item.command, state);
      const news = events.map((e) => decider.events.toNew(e, item.correlationId));
      const size = news.reduce((sum, event) => sum + appendBytes(event), 0);
      if (size > MAX_APPEND_BYTES) {
        throw new PayloadTooLargeError(`The command's events take ${size} bytes; one append holds at most ${MAX_APPEND_BYTES}.`);
      }
      if (bytes + size > MAX_APPEND_BYTES) {
        // The batch is full: this command and those after it go first in line, for the next append.
        item.tries--;
        queue.unshift(...batch.splice(i));
        break;
      }
      bytes += size;
      for (const event of events) state = decider.evolve(state, event);
      toAppend.push(...news);
      outcomes.push({ events, view: decider.view?.(state, item.command) });
    } catch (error) {
      outcomes.push({ error });
    }
  }
  return { state, outcomes, toAppend };
}

/**
 * An append that failed other than on a stale revision: nothing was appended. The commands that decided events
 * fail with the error; the others were decided on a state with those events in it, and are decided again, first
 * in line.
 */
function failAppend(batch: Queued[], outcomes: Outcome[], queue: Queued[], error: unknown): void {
  const others: Queued[] = [];
  batch.forEach((item, i) =>
    'events' in outcomes[i] && (outcomes[i] as { events: AnyEvent[] }).events.length > 0 ? item.reject(error) : others.push(item),
  );
  queue.unshift(...others);
}

/** Whether the stream met another writer in the last CONTENDED_MS. */
function contendedLately(log: EventLog, streamId: string): boolean {
  const last = contentionOf(log).get(streamId);
  return last !== undefined && Date.now() - last < CONTENDED_MS;
}

/** Marks the stream as written by another writer just now (kept for the STATE_CACHE_SIZE streams marked last). */
function markContended(log: EventLog, streamId: string): void {
  const marks = contentionOf(log);
  marks.delete(streamId);
  marks.set(streamId, Date.now());
  if (marks.size > STATE_CACHE_SIZE) marks.delete(marks.keys().next().value as string);
}

/**
 * A command's answer: its events and the position of the batch's last event (every command of a batch waits
 * for projections to reach the whole batch, which includes its own events), or 0 when it appended nothing.
 */
function settle(item: Queued, outcome: Outcome, position: number) {
  if ('error' in outcome) item.reject(outcome.error);
  else
    item.resolve({
      events: outcome.events,
      view: outcome.view,
      position: outcome.events.length > 0 ? position : 0,
      retries: item.tries - 1,
    });
}

/** A command's decision in a batch: its events and its view, or the error it failed with. */
type Outcome = { events: AnyEvent[]; view?: unknown } | { error: unknown };
