// Idempotency-Key for any operation (API.md rule 8 of bids, BACKOFFICE.md intake): the key is claimed on its own
// stream before the work, and the answer recorded after it, so a repeat gets the first answer and runs nothing.
import { createHash } from 'node:crypto';
import type { Decider } from '../../src/command-runner.ts';
import type { CommandStreams } from '../../src/commands.ts';
import { AppError, ConflictError, ValidationError } from '../../src/errors.ts';
import { idempotencyEvents, requestKeyStreamId, type IdempotencyEvent } from './events.ts';

/** How long a key's answer is given again (24 hours). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
/** A request that took a key and never answered (its process died) frees the key after this long. */
export const ABANDONED_AFTER_MS = 10 * 60_000;

type Answer = Record<string, unknown>;

export interface RequestKeyState {
  received: { bodyHash: string; at: number } | null;
  answered: { bodyHash: string; answer: Answer; at: number } | null;
}

export type RequestKeyCommand =
  | { type: 'Claim'; tenant: string; scope: string; keyHash: string; bodyHash: string; at: string }
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
    const { type: _type, ...data } = command;
    const now = Date.parse(command.at);
    const { answered, received } = state;
    if (answered && now - answered.at < IDEMPOTENCY_WINDOW_MS) {
      if (answered.bodyHash !== command.bodyHash)
        throw new AppError(422, 'Unprocessable Content', 'This Idempotency-Key was used with another body in the last 24 hours.');
      throw new RepeatedRequest(answered.answer);
    }
    if (!answered && received && now - received.at < ABANDONED_AFTER_MS)
      throw new ConflictError('A request with this Idempotency-Key is still running; ask again when it has answered.');
    return [{ type: 'RequestKeyClaimed', data }];
  },
};

/** The Idempotency-Key header's value, checked (400), or undefined when the request has none. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = (Array.isArray(header) ? header.join(',') : header).trim();
  if (!/^[\x21-\x7e]{1,200}$/.test(key))
    throw new ValidationError('Idempotency-Key must be 1 to 200 visible ASCII characters.', [
      { field: 'header.Idempotency-Key', message: 'must be 1 to 200 visible ASCII characters' },
    ]);
  return key;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Runs `work` once per key and body: without a key it just runs; with one, the first request runs it and
 * records its answer, a repeat within 24 hours gets that answer (422 with another body, 409 while it runs). A
 * `work` that throws (a refused request) records nothing and frees the key.
 */
export async function onceForKey<A extends Answer>(
  commands: CommandStreams,
  request: { tenant: string; scope: string; key: string | undefined; body: string | Buffer; at: () => string },
  work: () => Promise<A>,
): Promise<A> {
  if (request.key === undefined) return work();
  const keyHash = sha256(request.key).slice(0, 32);
  const bodyHash = sha256(request.body);
  const stream = requestKeyStreamId(request.tenant, request.scope, keyHash);
  const base = { tenant: request.tenant, scope: request.scope, keyHash, bodyHash };
  try {
    await commands.run(stream, requestKeyDecider, { type: 'Claim', ...base, at: request.at() });
  } catch (error) {
    if (error instanceof RepeatedRequest) return error.answer as A;
    throw error;
  }
  let answer: A;
  try {
    answer = await work();
  } catch (error) {
    // Refused (or failed) without an answer to give again: the key is free for the next try.
    await commands
      .run(stream, requestKeyDecider, { type: 'Release', tenant: request.tenant, scope: request.scope, keyHash, at: request.at() })
      .catch(() => undefined);
    throw error;
  }
  await commands.run(stream, requestKeyDecider, { type: 'Answer', ...base, answer, at: request.at() });
  return answer;
}
