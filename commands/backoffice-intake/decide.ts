import type { Decider } from '../../src/command-runner.ts';
import { AppError, ConflictError } from '../../src/errors.ts';
import { backofficeIntakeEvents, type BackofficeIntakeEvent, type IntakeAnswer } from './events.ts';

/** How long a key's answer is given again (BACKOFFICE.md: 24 hours). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
/** A request that took a key and never answered (its process died) frees the key after this long. */
export const ABANDONED_AFTER_MS = 10 * 60_000;

export interface IntakeRequestState {
  received: { bodyHash: string; at: number } | null;
  answered: { bodyHash: string; answer: IntakeAnswer; at: number } | null;
}

export type IntakeRequestCommand =
  | { type: 'Claim'; tenant: string; keyHash: string; bodyHash: string; at: string }
  | { type: 'Answer'; tenant: string; keyHash: string; bodyHash: string; answer: IntakeAnswer; at: string };

/** The key was used with this body already: its first answer is given again (the handler answers it). */
export class RepeatedRequest extends Error {
  constructor(readonly answer: IntakeAnswer) {
    super('repeated intake request');
  }
}

export const intakeRequestDecider: Decider<IntakeRequestState, IntakeRequestCommand, BackofficeIntakeEvent> = {
  events: backofficeIntakeEvents,
  initialState: () => ({ received: null, answered: null }),
  evolve(state, event) {
    const at = Date.parse(event.data.at);
    if (event.type === 'IntakeRequestReceived') return { received: { bodyHash: event.data.bodyHash, at }, answered: null };
    return { ...state, answered: { bodyHash: event.data.bodyHash, answer: event.data.answer, at } };
  },
  decide(command, state) {
    const now = Date.parse(command.at);
    if (command.type === 'Answer') {
      const { type: _type, ...data } = command;
      return [{ type: 'IntakeRequestAnswered', data }];
    }
    const { answered, received } = state;
    if (answered && now - answered.at < IDEMPOTENCY_WINDOW_MS) {
      if (answered.bodyHash !== command.bodyHash)
        throw new AppError(422, 'Unprocessable Content', 'This Idempotency-Key was used with another body in the last 24 hours.');
      throw new RepeatedRequest(answered.answer);
    }
    if (!answered && received && now - received.at < ABANDONED_AFTER_MS)
      throw new ConflictError('A request with this Idempotency-Key is still running; ask again when it has answered.');
    const { type: _type, ...data } = command;
    return [{ type: 'IntakeRequestReceived', data }];
  },
};
