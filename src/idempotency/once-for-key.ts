// Idempotency-Key for any operation (API.md "Timed bidding", BACKOFFICE.md "Intake over HTTP"): the key is claimed
// on its own stream before the work, and the answer recorded after it, so a repeat gets the first answer and runs
// nothing.
import { createHash } from 'node:crypto';
import type { CommandStreams } from '../command-streams.ts';
import { ValidationError } from '../errors.ts';
import { requestKeyStreamId } from './events.ts';
import { RepeatedRequest, requestKeyDecider } from './decide.ts';

type Answer = Record<string, unknown>;

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
 * records its answer, a repeat within 24 hours gets that answer (422 with another body, 409 with Retry-After while
 * it runs). A `work` that throws (a refused request) records nothing and frees the key.
 */
export async function onceForKey<A extends Answer>(
  commands: CommandStreams,
  request: {
    tenant: string;
    scope: string;
    key: string | undefined;
    body: string | Buffer;
    at: () => string;
    /** How long a claim without an answer holds the key (default ABANDONED_AFTER_MS): longer than the work can take. */
    abandonedAfterMs?: number;
  },
  work: () => Promise<A>,
): Promise<A> {
  if (request.key === undefined) return work();
  const keyHash = sha256(request.key).slice(0, 32);
  const bodyHash = sha256(request.body);
  const stream = requestKeyStreamId(request.tenant, request.scope, keyHash);
  const base = { tenant: request.tenant, scope: request.scope, keyHash, bodyHash };
  try {
    await commands.run(stream, requestKeyDecider, { type: 'Claim', ...base, at: request.at(), abandonedAfterMs: request.abandonedAfterMs });
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
