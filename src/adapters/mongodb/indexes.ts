import { createHash } from 'node:crypto';
import type { CreateIndexOptions, Collection as MongoCollection, Document } from 'mongodb';
import type { CollectionSpec } from '../../ports/read-models.ts';
import { indexKeys, indexOptions, TENANT_FIELD, type MongoDocument } from './filter.ts';

/**
 * A collection's indexes brought to what its spec declares. MongoDB refuses an index whose name exists with other
 * options (IndexKeySpecsConflict, 86, or IndexOptionsConflict, 85: `_doesSpecConflictWithExisting` in
 * src/mongo/db/catalog/index_catalog_impl.cpp), so a changed index is never asked for under its old name: indexes
 * are matched by the options that tell one from another (the server's "signature": keys, unique, partial filter;
 * jstests/core/index_signature.js), a missing one is built under a name of its own, and only then is the one it
 * replaces dropped, so a unique constraint holds throughout.
 */

/** An index as the adapter declares it. */
export interface WantedIndex {
  name: string;
  key: Array<[string, 1]>;
  unique: boolean;
  partialFilterExpression?: MongoDocument;
}

/** JSON with object keys sorted: two equal filters compare equal whatever the order they were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

function signature(key: Array<[string, unknown]>, unique: unknown, partialFilterExpression: unknown): string {
  return canonical([key, unique === true, partialFilterExpression ?? null]);
}

/** The indexes of a spec: the tenant's whole collection in id order (filters, counts, `_id` sorts), then each declared one. */
export function wantedIndexes(spec: CollectionSpec): WantedIndex[] {
  const declared = (spec.indexes ?? []).map((index) => ({ key: indexKeys(index), ...indexOptions(index) }));
  const all = [
    {
      key: [
        [TENANT_FIELD, 1],
        ['_id', 1],
      ] as Array<[string, 1]>,
      unique: false,
    },
    ...declared,
  ];
  return all.map((index) => {
    const hash = createHash('sha256')
      .update(signature(index.key, index.unique, index.partialFilterExpression))
      .digest('hex')
      .slice(0, 8);
    // The driver's default name (keys and directions joined by `_`), with the signature's hash: a changed
    // index never asks for the name of the one it replaces.
    return { ...index, name: `${index.key.flat().join('_')}_${hash}` };
  });
}

/** What the server lists has the signature of what is wanted (listIndexes gives `key` as a document, in its order). */
export function sameIndex(existing: Document, wanted: WantedIndex): boolean {
  return (
    existing.sparse !== true &&
    signature(Object.entries(existing.key as object), existing.unique, existing.partialFilterExpression) ===
      signature(wanted.key, wanted.unique, wanted.partialFilterExpression)
  );
}

/**
 * An index build on a full copy may take far longer than an operation's bound (`socketTimeoutMS`, mongoClientOptions):
 * the driver waits for its answer up to an hour (a command option the driver hands the connection with the command's
 * others: `buildOptions`, `lib/operations/command.js`; `sendWire`, `lib/cmap/connection.js`).
 */
export const INDEX_BUILD_TIMEOUT_MS = 3_600_000;
const INDEX_BUILD = { socketTimeoutMS: INDEX_BUILD_TIMEOUT_MS } as CreateIndexOptions;

const INDEX_NOT_FOUND = 27;
const DUPLICATE_KEY = 11000;

/** A unique index the documents already held break: kept out until a rebuild builds it into a fresh copy. */
export interface DeferredIndex {
  name: string;
  error: string;
}

/**
 * Builds the wanted indexes the collection lacks, then drops the adapter's indexes (those that start with the
 * tenant) that none of them matches. A unique index that the documents already there break (DuplicateKey, 11000,
 * from the build: `_handleDuplicateKey` in src/mongo/db/index/index_access_method.cpp) is not built, and nothing is
 * dropped, when `deferBroken` (a live copy: a rebuild builds it into its fresh copy); it is answered, so the caller
 * can say so. Into a fresh copy (`deferBroken` false) it fails.
 */
export async function reconcileIndexes<T extends Document>(
  collection: MongoCollection<T>,
  wanted: WantedIndex[],
  options: { deferBroken: boolean },
): Promise<DeferredIndex[]> {
  const existing = await collection.listIndexes().toArray();
  const deferred: DeferredIndex[] = [];
  const kept = new Set<string>();
  for (const index of wanted) {
    const present = existing.find((e) => sameIndex(e, index));
    if (present) {
      kept.add(present.name as string);
      continue;
    }
    const { name, key, ...rest } = index;
    try {
      await collection.createIndex(key, { name, ...rest }, INDEX_BUILD);
    } catch (error) {
      if (!options.deferBroken || (error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
      deferred.push({ name, error: (error as Error).message });
    }
  }
  // With one left out, every index there stays (among them what it would replace) until the rebuild.
  if (deferred.length > 0) return deferred;
  for (const e of existing) {
    const ours = Object.keys(e.key as object)[0] === TENANT_FIELD;
    if (!ours || kept.has(e.name as string)) continue;
    try {
      await collection.dropIndex(e.name as string);
    } catch (error) {
      if ((error as { code?: unknown }).code !== INDEX_NOT_FOUND) throw error; // another process dropped it first
    }
  }
  return deferred;
}
