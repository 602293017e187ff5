/**
 * The token of an add (bullmq-jobs.ts): BullMQ answers an add of an existing id like a new one, so each add carries
 * a token of its own, and the stored job's token says whether this add created it.
 */

/** The option that carries an add's token into the stored job (BullMQ keeps options it does not know). */
export const TOKEN_OPTION = 'addToken';

/** The token kept in a stored job's options (its hash field `opts`), if any. */
export function storedToken(opts: string | null): string | undefined {
  if (!opts) return undefined;
  try {
    const parsed = JSON.parse(opts) as Record<string, unknown>;
    return typeof parsed[TOKEN_OPTION] === 'string' ? parsed[TOKEN_OPTION] : undefined;
  } catch {
    return undefined;
  }
}
