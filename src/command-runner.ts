import { type EventLog, WrongExpectedVersionError } from './ports/event-log.ts';
import type { AnyEvent, EventSet } from './events/define.ts';

/**
 * A feature's decider (emmett's `Decider<State, Command, Event>`), typed over the feature's own events: it
 * cannot return, nor fold, another feature's event. `events` is the set the runner reads the stream through
 * and validates decided events against before appending them.
 */
export interface Decider<State, Command, Event extends AnyEvent> {
  events: EventSet<Event>;
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  /** Pure: given the state and the command (time and lookups inside it), the events to append, or a thrown AppError. */
  decide: (command: Command, state: State) => Event[];
}

export interface CommandResult<Event extends AnyEvent = AnyEvent> {
  events: Event[];
  /** Global position of the last appended event; 0 when nothing was appended. */
  position: number;
}

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
const stateCaches = new WeakMap<EventLog, WeakMap<object, Map<string, { state: unknown; revision: number }>>>();
/** Commands on one stream run one after another in this process (no wasted conflict retries). */
const streamLocks = new Map<string, Promise<unknown>>();

function cacheOf(log: EventLog, decider: object) {
  let byDecider = stateCaches.get(log);
  if (!byDecider) stateCaches.set(log, (byDecider = new WeakMap()));
  let cache = byDecider.get(decider);
  if (!cache) byDecider.set(decider, (cache = new Map()));
  return cache;
}

async function withStreamLock<T>(streamId: string, fn: () => Promise<T>): Promise<T> {
  const previous = streamLocks.get(streamId) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  streamLocks.set(streamId, settled);
  try {
    return await run;
  } finally {
    if (streamLocks.get(streamId) === settled) streamLocks.delete(streamId);
  }
}

/**
 * Loads the stream, folds it into state, decides, and appends with the expected revision. A concurrent
 * append to the same stream (another process) makes the append fail; the command is then decided again
 * on the new state (a few times), so two commands can never both win on stale state.
 *
 * The folded state of a stream is kept (bounded, per decider) with its revision, so the next command reads
 * only newer events; `evolve` may therefore update the state in place, and must not share it between streams.
 */
export async function runCommand<State, Command, Event extends AnyEvent>(
  log: EventLog,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: { correlationId?: string; attempts?: number } = {},
): Promise<CommandResult<Event>> {
  const attempts = options.attempts ?? 5;
  const cache = cacheOf(log, decider);
  return withStreamLock(streamId, async () => {
    for (let attempt = 1; ; attempt++) {
      const cached = cache.get(streamId) as { state: State; revision: number } | undefined;
      let state = cached ? cached.state : decider.initialState();
      let revision = cached ? cached.revision : -1;
      cache.delete(streamId);
      for (const event of await log.readStream(streamId, { fromRevision: revision + 1 })) {
        state = decider.evolve(state, decider.events.read(event));
        revision = event.revision;
      }
      const remember = (s: State, r: number) => {
        cache.set(streamId, { state: s, revision: r });
        if (cache.size > STATE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      };
      let events: Event[];
      try {
        events = decider.decide(command, state);
      } catch (error) {
        remember(state, revision);
        throw error;
      }
      if (events.length === 0) {
        remember(state, revision);
        return { events, position: 0 };
      }
      try {
        const result = await log.appendToStream(
          streamId,
          events.map((e) => decider.events.toNew(e, options.correlationId)),
          { expectedRevision: revision === -1 ? 'no_stream' : revision },
        );
        remember(events.reduce(decider.evolve, state), result.nextExpectedRevision);
        return { events, position: result.position };
      } catch (error) {
        remember(state, revision);
        if (error instanceof WrongExpectedVersionError && attempt < attempts) continue;
        throw error;
      }
    }
  });
}

export interface ReadYourWritesServices {
  log: EventLog;
  projector: { waitFor(position: number, names: string[], timeoutMs?: number): Promise<boolean> };
  logger: { warn(obj: object, msg: string): void };
  readYourWritesTimeoutMs: number;
}

/**
 * Read your writes: waits (bounded) until the named projections include the event at `position`, so the
 * caller's next read shows the change. A timeout answers anyway and is logged: the events are stored.
 */
export async function waitForProjections(services: ReadYourWritesServices, position: number, projections: string[]): Promise<void> {
  if (position <= 0) return;
  const reached = await services.projector.waitFor(position, projections, services.readYourWritesTimeoutMs);
  if (!reached) services.logger.warn({ position, projections }, 'projections did not catch up in time');
}
