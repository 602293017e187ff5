// The Idempotency-Key's stream (API.md "Timed bidding", BACKOFFICE.md "Intake over HTTP"): a key is claimed
// before the work and its answer recorded after it; a repeat within the window gets the first answer
// (once-for-key.ts runs it).
import type { Decider } from '../decider.ts';
import { AppError, ConflictError } from '../errors.ts';
import { idempotencyEvents, type IdempotencyEvent } from './events.ts';

/** How long a key's answer is given again (24 hours). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
/**
 * A request that took a key and never answered (its process died, or its store went away before it could free
 * the key) frees it after this long, unless the operation's every wait is bounded shorter (a bid's: 30 s).
 */
export const ABANDONED_AFTER_MS = 10 * 60_000;

type Answer = Record<string, unknown>;

export interface RequestKeyState {
  received: { bodyHash: string; at: number } | null;
  answered: { bodyHash: string; answer: Answer; at: number } | null;
}

export type RequestKeyCommand =
  | { type: 'Claim'; tenant: string; scope: string; keyHash: string; bodyHash: string; at: string; abandonedAfterMs?: number }
  | { type: 'Answer'; tenant: string; scope: string; keyHash: string; bodyHash: string; answer: Answer; at: string }
  | { type: 'Release'; tenant: string; scope: string; keyHash: string; at: string };

/** The key was used with this body already: its first answer is given again. */
export class RepeatedRequest extends Error {
  constructor(readonly answer: Answer) {
    super('repeated request');
  }
}

export const requestKeyDecider: Decider<RequestKeyState, RequestKeyCommand, IdempotencyEvent> = {
  events: idempotencyEvents,
  initialState: () => ({ received: null, answered: null }),
  evolve(state, event) {
    const at = Date.parse(event.data.at);
    if (event.type === 'RequestKeyClaimed') return { received: { bodyHash: event.data.bodyHash, at }, answered: null };
    if (event.type === 'RequestKeyReleased') return { received: null, answered: null };
    return { ...state, answered: { bodyHash: event.data.bodyHash, answer: event.data.answer, at } };
  },
  decide(command, state) {
    if (command.type === 'Answer') {
      const { type: _type, ...data } = command;
      return [{ type: 'RequestKeyAnswered', data }];
    }
    if (command.type === 'Release') {
      const { type: _type, ...data } = command;
      return state.received && !state.answered ? [{ type: 'RequestKeyReleased', data }] : [];
    }
    const { type: _type, abandonedAfterMs = ABANDONED_AFTER_MS, ...data } = command;
    const now = Date.parse(command.at);
    const { answered, received } = state;
    if (answered && now - answered.at < IDEMPOTENCY_WINDOW_MS) {
      if (answered.bodyHash !== command.bodyHash)
        throw new AppError(422, 'Unprocessable Content', 'This Idempotency-Key was used with another body in the last 24 hours.', {
          code: 'idempotency-key-reused',
        });
      throw new RepeatedRequest(answered.answer);
    }
    if (!answered && received && now - received.at < abandonedAfterMs)
      throw new ConflictError(
        'idempotency-key-in-use',
        'A request with this Idempotency-Key is still running; ask again when it has answered.',
        Math.max(1, Math.ceil((received.at + abandonedAfterMs - now) / 1000)),
      );
    return [{ type: 'RequestKeyClaimed', data }];
  },
};
