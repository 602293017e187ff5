// The contract every feature's write side implements (after emmett's Decider), and what running a command answers.
import type { AnyEvent, EventSet } from './events/define.ts';

/**
 * A feature's decider (emmett's `Decider<State, Command, Event>`), typed over the feature's own events: it
 * cannot return, nor fold, another feature's event. `events` is the set the runner reads the stream through
 * and validates decided events against before appending them.
 */
export interface Decider<State, Command, Event extends AnyEvent, View = undefined> {
  events: EventSet<Event>;
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  /** Pure: given the state and the command (time and lookups inside it), the events to append, or a thrown AppError. */
  decide: (command: Command, state: State) => Event[];
  /**
   * What the command's caller answers with, read off the state right after the command's own events (a copy:
   * the state may change in place): the answer then needs no second read of the stream.
   */
  view?: (state: State, command: Command) => View;
  /**
   * A copy of the state that evolve's changes in place do not reach. With it, a stream another process also
   * appends to keeps its state across a conflict (only the other writer's events are read onto the copy);
   * without it, the stream is read again from its start after each conflict.
   */
  copy?: (state: State) => State;
}

export interface CommandResult<Event extends AnyEvent = AnyEvent, View = undefined> {
  events: Event[];
  /** The decider's view of the state right after this command's events (undefined when it has none). */
  view?: View;
  /** Global position of the last appended event; 0 when nothing was appended. */
  position: number;
  /** How many times the command was decided again after another writer appended first (runCommand sets it). */
  retries?: number;
}
