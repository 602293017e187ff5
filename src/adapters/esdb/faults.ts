/**
 * The EventStoreDB server's ways of not serving a call, as the adapter answers them: errors that src/errors.ts
 * maps to 503 with Retry-After (`UnavailableError`, `DeadlineExceededError`).
 */
import { EsdbDeadlineExceededError, EsdbUnavailableError, EsdbUnknownError } from './client.ts';

/**
 * The texts a server gives a batch append it does not take (`ClientMessage.NotHandled`: starting, overloaded,
 * electing a leader), with an empty message as details (EventStore/EventStore,
 * src/EventStore.Core/Services/Transport/Grpc/Streams.BatchAppend.cs, `ConvertMessage`). The client does not know
 * those details and throws `new UnknownError(undefined, \`Could not recognize ${message}\`)`
 * (`dist/streams/appendToStream/unpackError.js`), an error type with no meaning of its own.
 */
const NOT_HANDLED =
  /^Could not recognize (Server Is Not Ready|Server Is Busy|No leader info available in response|Unknown NotHandledReason \(\d+\))$/;

/**
 * An append the server did not take (nothing of it was written) as the client's UnavailableError, with the
 * client's error as its cause; null for any other error.
 */
export function notTaken(error: unknown): Error | null {
  if (!(error instanceof EsdbUnknownError)) return null;
  const reason = NOT_HANDLED.exec(error.message)?.[1];
  if (!reason) return null;
  return Object.assign(new EsdbUnavailableError(undefined, `EventStoreDB did not take the append: ${reason}`), { cause: error });
}

/**
 * A call of the client bounded by `ms`: past it, DeadlineExceededError. The client opens the batch-append call
 * with `deadline: Infinity` (`dist/streams/appendToStream/batchAppend.js`) and sends the append's deadline only
 * to the server, inside the request: a server that stops answering on a connection that stays open would hold the
 * append, and the request waiting on it, for ever. The call itself is left to settle (or to fail at `dispose()`);
 * what it answers late is dropped.
 */
export async function within<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EsdbDeadlineExceededError(undefined, `EventStoreDB ${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
    call.catch(() => undefined);
  }
}
