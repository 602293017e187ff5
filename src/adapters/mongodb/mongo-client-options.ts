/** How the MongoDB adapters reach their server: the database a URL names, the driver's waits and time-outs. */
import type { MongoClientOptions } from 'mongodb';

/** The database named in a MongoDB URL (`mongodb[+srv]://hosts/<db>?options`), without echoing the URL. */
export function databaseFromUrl(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]+)/.exec(url);
  return match ? decodeURIComponent(match[1]) : undefined;
}

/**
 * Bounded waits for a server that is away: the driver's defaults wait 30 s to select a server before
 * MongoServerSelectionError (answered 503, src/errors.ts); a request waits at most this, a start fails as soon.
 */
export const MONGO_WAITS = { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 } as const;

/** How long one operation may take (MONGODB_TIMEOUT_MS): see mongoClientOptions. */
export const MONGO_TIMEOUT_MS = 5_000;

/**
 * The driver's options for a server that accepts connections and then never answers (frozen, its disk hung): with
 * none, an operation on an open connection waits for ever (the driver's `socketTimeoutMS` is 0; `timeoutMS`, the
 * client-side operation time-out, "has no effect" in driver 7: `lib/connection_string.js`, `lib/timeout.js`). The
 * driver stops waiting for an answer `timeoutMs` + 1 s after a command is sent (`socketTimeoutMS`: a
 * MongoNetworkTimeoutError, answered 503), the server ends a read itself after `timeoutMs` (`maxTimeMS`, set on each
 * read; MaxTimeMSExpired, 503 too). A read the driver retries once (retryable reads) ends within twice that. 0: no
 * bound of the service's own.
 */
export function mongoClientOptions(timeoutMs = MONGO_TIMEOUT_MS): MongoClientOptions {
  return { writeConcern: { w: 'majority' }, retryWrites: true, ...MONGO_WAITS, socketTimeoutMS: timeoutMs > 0 ? timeoutMs + 1000 : 0 };
}
