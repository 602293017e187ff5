import type { EventLog, RecordedEvent } from './ports/event-log.ts';
import { WrongExpectedVersionError } from './ports/event-log.ts';
import type { AppEvent } from './events/catalog.ts';
import { asAppEvent, toNew } from './events/registry.ts';

export interface Decider<State, Command> {
  initialState: () => State;
  evolve: (state: State, event: AppEvent) => State;
  /** Pure: given the state and the command (time and lookups inside it), the events to append, or a thrown AppError. */
  decide: (command: Command, state: State) => AppEvent[];
}

export interface CommandResult {
  events: AppEvent[];
  /** Global position of the last appended event; 0 when nothing was appended. */
  position: number;
}

/**
 * Loads the stream, folds it into state, decides, and appends with the expected revision. A concurrent
 * append to the same stream makes the append fail; the command is then decided again on the new state
 * (a few times), so two commands can never both win on stale state.
 */
export async function runCommand<State, Command>(
  log: EventLog,
  streamId: string,
  decider: Decider<State, Command>,
  command: Command,
  options: { correlationId?: string; attempts?: number } = {},
): Promise<CommandResult> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const recorded: RecordedEvent[] = await log.readStream(streamId);
    const state = recorded.reduce((s, e) => decider.evolve(s, asAppEvent(e)), decider.initialState());
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, position: 0 };
    const expectedRevision = recorded.length ? recorded[recorded.length - 1].revision : 'no_stream';
    try {
      const result = await log.appendToStream(
        streamId,
        events.map((e) => toNew(e, options.correlationId)),
        { expectedRevision },
      );
      return { events, position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError && attempt < attempts) continue;
      throw error;
    }
  }
}

/**
 * Runs a command for an HTTP caller and waits (bounded) until the named projections include its events,
 * so the caller's next read shows the change. A timeout answers anyway and is logged: the events are stored.
 */
export async function runCommandAndWait<State, Command>(
  services: {
    log: EventLog;
    projector: { waitFor(position: number, names: string[], timeoutMs?: number): Promise<boolean> };
    logger: { warn(obj: object, msg: string): void };
    readYourWritesTimeoutMs: number;
  },
  streamId: string,
  decider: Decider<State, Command>,
  command: Command,
  options: { correlationId?: string; projections: string[] },
): Promise<CommandResult> {
  const result = await runCommand(services.log, streamId, decider, command, { correlationId: options.correlationId });
  if (result.position > 0) {
    const reached = await services.projector.waitFor(result.position, options.projections, services.readYourWritesTimeoutMs);
    if (!reached) services.logger.warn({ streamId, position: result.position, projections: options.projections }, 'projections did not catch up in time');
  }
  return result;
}
