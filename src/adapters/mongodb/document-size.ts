import { BSON } from 'mongodb';
import type { StoredDoc } from './filter.ts';

/** The largest statement the driver sends and the largest document the server stores (BSONObjMaxUserSize, 16 MiB). */
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

/** A read-model document MongoDB cannot hold: an event that cannot be applied there (parked like any other). */
export class DocumentTooLargeError extends Error {
  constructor(collection: string, id: string, bytes: number) {
    super(`${collection} document ${id} is ${bytes} bytes: MongoDB stores documents of up to 16 MiB`);
    this.name = 'DocumentTooLargeError';
  }
}

/**
 * Refuses a document whose replacement the driver would not send: a bulkWrite statement `{ q, u, upsert }` of 16 MiB
 * or more fails the whole bulkWrite before any of it is sent (`lib/bulk/ordered.js`, `makeUpdateStatement` in
 * `lib/operations/update.js`), and the server refuses a document past 16 MiB (BSONObjectTooLarge). Checked before
 * anything of a batch is written, so a rebuild's batches, written outside a transaction, never stop half way on it.
 */
export function checkDocumentSize(collection: string, id: string, stored: StoredDoc): void {
  const bytes = BSON.calculateObjectSize({ q: { _id: stored._id }, u: stored, upsert: true });
  if (bytes >= MAX_BSON_OBJECT_SIZE) throw new DocumentTooLargeError(collection, id, BSON.calculateObjectSize(stored));
}
