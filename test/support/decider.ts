import { expect } from 'chai';
import type { Decider } from '../../src/decider.ts';
import type { AnyEvent } from '../../src/events/define.ts';

/**
 * Given events, when a command, then events (each checked against its schema through the decider's event
 * set), nothing, or an error. Events are the decider's own: another feature's event does not type-check.
 *   spec(decider).given([...]).when(command).then([...])
 *   spec(decider).given([...]).when(command).thenNothingHappened()
 */
export function spec<S, C, E extends AnyEvent, V>(decider: Decider<S, C, E, V>) {
  return {
    given(events: E[]) {
      const state = events.reduce(decider.evolve, decider.initialState());
      return {
        when(command: C) {
          return {
            then(expected: E[]) {
              const actual = decider.decide(command, state);
              expect(actual).to.deep.equal(expected);
              for (const event of actual) decider.events.toNew(event);
            },
            /** The command changes nothing: it decides no event (a repeated command, one that is already done). */
            thenNothingHappened() {
              expect(decider.decide(command, state), 'the events the command decided').to.deep.equal([]);
            },
            thenThrows(errorType: new (...args: never[]) => Error, message?: RegExp) {
              expect(() => decider.decide(command, state)).to.throw(errorType, message);
            },
          };
        },
      };
    },
  };
}
