// The write side as callers use it: command streams over the log, and a request's commands with read your writes.
import type { EventLog, RecordedEvent } from './ports/event-log.ts';
import type { AnyEvent } from './events/define.ts';
import { WriteContentionError } from './errors.ts';
import { foldStream, runCommand } from './command-runner.ts';
import type { CommandResult, Decider } from './decider.ts';
import { readModelsOf, waitForProjections, type ReadYourWritesServices } from './read-your-writes.ts';

/**
 * The write side as a caller uses it, without the raw event log: a command run on a stream (decided on the
 * stream's events and appended with the expected revision, see runCommand), and one stream's events read for
 * a write-side check (a key that must still work). The correlation id is bound once, by whoever builds it.
 */
export interface CommandStreams {
  run<State, Command, Event extends AnyEvent, View = undefined>(
    streamId: string,
    decider: Decider<State, Command, Event, View>,
    command: Command,
    options?: { attempts?: number },
  ): Promise<CommandResult<Event, View>>;
  /** A stream folded into a decider's state. Answers are read from read models; this is for deciding only. */
  fold<State, Event extends AnyEvent>(
    streamId: string,
    decider: Pick<Decider<State, unknown, Event>, 'events' | 'initialState' | 'evolve'>,
  ): Promise<State>;
  /** The recorded events of one stream, oldest first (whether anything was ever appended to it), from a revision on. */
  readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]>;
}

/** Command streams over an event log (imports, jobs and tests, which hold the log themselves). */
export function commandStreams(log: EventLog, options: { correlationId?: string } = {}): CommandStreams {
  return {
    run: (streamId, decider, command, runOptions = {}) =>
      runCommand(log, streamId, decider, command, {
        correlationId: options.correlationId,
        attempts: runOptions.attempts,
      }),
    fold: (streamId, decider) => foldStream(log, streamId, decider),
    readStream: (streamId, options) => log.readStream(streamId, options),
  };
}

/**
 * What an HTTP handler writes with: command streams, plus read your writes. With `readYourWrites`, `run` waits
 * (bounded) until the read models of the events it appended include them, so the caller's next read shows
 * them: the document projections that handle those event types (readModelsOf). A timeout answers anyway (the
 * events are stored) and is logged. The projector itself stays out of reach.
 */
export interface Commands extends CommandStreams {
  run<State, Command, Event extends AnyEvent, View = undefined>(
    streamId: string,
    decider: Decider<State, Command, Event, View>,
    command: Command,
    options?: {
      attempts?: number;
      /** Wait for the read models of the appended events' types. */
      readYourWrites?: boolean;
      /** Wait for these projections by name instead (what the event types do not say). */
      projections?: string[];
    },
  ): Promise<CommandResult<Event, View>>;
  /**
   * Waits (bounded) for the read models of what a run without `readYourWrites` appended (its position and events),
   * or for the `projections` named (what the event types do not say).
   */
  waitFor(appended: { position: number; events: readonly { type: string }[]; projections?: readonly string[] }): Promise<void>;
  /** Waits (bounded) until the read models of these event types include everything appended so far, by anyone. */
  catchUp(eventTypes: readonly string[]): Promise<void>;
}

/**
 * The commands of one request: every append carries its request id as the correlation id. A command that had
 * to be decided again because another writer appended first is logged at debug level; one that gave up (its
 * budget spent: a 503 with Retry-After) at warn level.
 */
export function requestCommands(services: ReadYourWritesServices, correlationId: string): Commands {
  const streams = commandStreams(services.log, { correlationId });
  const readModels = (eventTypes: Iterable<string>) => readModelsOf(services.projector.projections, eventTypes);
  const waitFor: Commands['waitFor'] = async ({ position, events, projections }) => {
    if (position > 0) await waitForProjections(services, position, projections ? [...projections] : readModels(events.map((e) => e.type)));
  };
  return {
    async run(streamId, decider, command, options = {}) {
      const result = await streams.run(streamId, decider, command, { attempts: options.attempts }).catch((error: unknown) => {
        if (error instanceof WriteContentionError) {
          services.logger.warn(
            { reqId: correlationId, streamId, tries: error.tries },
            'command given up: its stream kept changing under it',
          );
        }
        throw error;
      });
      if (result.retries)
        services.logger.debug?.(
          { reqId: correlationId, streamId, retries: result.retries },
          'command decided again after concurrent appends',
        );
      if (options.projections) await waitForProjections(services, result.position, options.projections);
      else if (options.readYourWrites) await waitFor(result);
      return result;
    },
    fold: streams.fold,
    readStream: streams.readStream,
    waitFor,
    async catchUp(eventTypes) {
      await waitForProjections(services, await services.log.headPosition(), readModels(eventTypes));
    },
  };
}
