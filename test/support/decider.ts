import { expect } from 'chai';
import type { Decider } from '../../src/command-runner.ts';
import type { AppEvent } from '../../src/events/catalog.ts';
import { toNew } from '../../src/events/registry.ts';

/**
 * Given events, when a command, then events (each checked against its schema) or an error.
 *   spec(decider).given([...]).when(command).then([...])
 */
export function spec<S, C>(decider: Decider<S, C>) {
  return {
    given(events: AppEvent[]) {
      const state = events.reduce(decider.evolve, decider.initialState());
      return {
        when(command: C) {
          return {
            then(expected: AppEvent[]) {
              const actual = decider.decide(command, state);
              expect(actual).to.deep.equal(expected);
              for (const event of actual) toNew(event);
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
