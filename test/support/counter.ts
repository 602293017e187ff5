/**
 * A test decider for the command runner's specs: a counter that moves by one per command, so a command
 * decided on a stale state would count a number twice. `expect` makes a command a no-op unless the counter
 * is there; `fail` makes its decision fail. Its view is the count right after the command.
 */
import { z } from 'zod';
import type { Decider } from '../../src/decider.ts';
import type { NewEvent } from '../../src/ports/event-log.ts';
import type { DocumentProjection } from '../../src/projector/projection.ts';
import { defineEvent, defineEvents, tenantId, type EventsOf } from '../../src/events/define.ts';
import { ConflictError } from '../../src/errors.ts';

const Counted = defineEvent({
  type: 'Counted',
  version: 1,
  schema: z.object({ tenant: tenantId, n: z.number().int(), by: z.string() }),
  description: 'A test event: the counter moved to n.',
  stream: 'counter-<tenant>',
});
export const counterEvents = defineEvents([Counted]);
export type CounterEvent = EventsOf<typeof counterEvents>;
export type CounterCommand = { by: string; expect?: number; fail?: boolean };

export const counter: Decider<{ n: number }, CounterCommand, CounterEvent, number> = {
  events: counterEvents,
  initialState: () => ({ n: 0 }),
  evolve: (state, event) => ((state.n = event.data.n), state),
  view: (state) => state.n,
  decide: (command, state) => {
    if (command.fail) throw new ConflictError('reminder-exists', `refused at ${state.n}`);
    if (command.expect !== undefined && command.expect !== state.n) return [];
    return [{ type: 'Counted', data: { tenant: 'demo', n: state.n + 1, by: command.by } }];
  },
};

/** A Counted event to append directly (another writer). */
export const counted = (n: number, by: string): NewEvent => counterEvents.toNew({ type: 'Counted', data: { tenant: 'demo', n, by } });

/** A projection of the counter for the projector's specs: counts its `Counted` events (document `n` of `counts`). */
export const countedProjection: DocumentProjection = {
  kind: 'documents',
  name: 'counter',
  collections: [{ name: 'counts' }],
  handles: ['Counted'],
  async apply(_event, uow) {
    await uow.update<{ _id: string; n: number }>('counts', 'demo', 'n', (doc) => ({ _id: 'n', n: (doc?.n ?? 0) + 1 }));
  },
};
