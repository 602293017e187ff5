/**
 * A collection brought to the schema its spec declares, at ensureCollection in the process that owns the index,
 * as the embedded engines re-index theirs when the spec changed:
 * - fields are altered in place (PATCH /collections/:c with fields to add, to drop, or to drop and add again:
 *   what the server allows, typesense/typesense src/collection.cpp validate_alter_payload); the server indexes
 *   the documents it holds under them, and answers once done;
 * - what no alteration changes (token_separators: PATCH takes `fields`, `metadata`, `synonym_sets` and
 *   `curation_sets` only, src/core_api.cpp patch_update_collection), or an alteration the server refuses for
 *   the documents it holds, is made by a new collection behind the alias, filled with those documents (the
 *   read side as it stands: a value that no longer fits its field is left out), then the alias swapped and the
 *   old collection dropped.
 * The values a new field takes from the events still need the projection rebuilt (`npm run rebuild -- lot-search`).
 */
import type { SearchCollectionSpec } from '../../ports/search.ts';
import { bounded } from './availability.ts';
import { statusOf, type TypesenseApi } from './client.ts';
import type { TypesenseDocument } from './documents.ts';
import { collectionSchema, fieldChanges, sameSeparators } from './schema.ts';

export interface Alignment {
  server: TypesenseApi;
  /** Clock for the name of a new collection (`<alias>_<epoch ms>`). */
  now: () => number;
  /** How long an alteration (ours, or another process's under way) is waited for. */
  alterTimeoutMs: number;
  /** Documents per import of a copy. */
  importChunk: number;
  /** Imports documents into a collection, values that do not fit left out, every line checked. */
  copy: (target: string, docs: TypesenseDocument[]) => Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function dropping404(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
}

/** Brings the collection behind `alias` to the spec's schema (see above); nothing is sent when it matches. */
export async function alignCollection(a: Alignment, alias: string, spec: SearchCollectionSpec): Promise<void> {
  const deadline = Date.now() + a.alterTimeoutMs;
  let refused = false;
  for (;;) {
    const live = await a.server.retrieveCollection(alias);
    const wanted = collectionSchema(spec, live.name);
    if (!sameSeparators(live, wanted)) return reindexBehindAlias(a, alias, live.name, spec);
    const changes = fieldChanges(live, wanted);
    if (changes.length === 0) return;
    try {
      const left = Math.max(1, deadline - Date.now());
      await bounded(`the alteration of ${live.name}`, left, (signal) => a.server.updateCollection(live.name, changes, signal));
    } catch (error) {
      const status = statusOf(error);
      // 422: another alteration of it is under way (src/raft_server.cpp): looked at again once it may be done.
      if (status === 422 && Date.now() < deadline) await sleep(1000);
      // 400 once: another process may have altered it since it was read; a second time, the server refuses it
      // for the documents it holds (validate_alter_payload checks each against the new fields).
      else if (status === 400 && !refused) refused = true;
      else if (status === 400) return reindexBehindAlias(a, alias, live.name, spec);
      else throw error;
    }
  }
}

/** A new collection with the spec's schema and the documents of `from`, then the alias swapped to it and `from` dropped. */
async function reindexBehindAlias(a: Alignment, alias: string, from: string, spec: SearchCollectionSpec): Promise<void> {
  const physical = `${alias}_${a.now()}`;
  await a.server.createCollection(collectionSchema(spec, physical));
  try {
    let batch: TypesenseDocument[] = [];
    for await (const doc of a.server.exportAll(from)) {
      batch.push(doc);
      if (batch.length >= a.importChunk) {
        await a.copy(physical, batch);
        batch = [];
      }
    }
    await a.copy(physical, batch);
    await a.server.upsertAlias(alias, physical);
  } catch (error) {
    await dropping404(a.server.deleteCollection(physical));
    throw error;
  }
  await dropping404(a.server.deleteCollection(from));
}
