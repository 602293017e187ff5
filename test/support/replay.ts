// "The read models equal a replay of the log": document projections replayed from position 0 into a fresh
// embedded store, and every collection of theirs read the same way from any store, so a spec compares the two.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { createLogger } from '../../src/logger.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import type { Projection } from '../../src/projector/projection.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import { LOT_SEARCH_PARTITION } from '../../projections/lot-search/index.ts';

/** Every document of the projections' collections, by `tenant:collection`, in `_id` order. */
export async function collectionsOf(
  store: DocumentStore,
  projections: Projection[],
  tenants: string[],
): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const projection of projections)
    for (const collection of projection.kind === 'documents' ? projection.collections : [])
      for (const tenant of tenants)
        result[`${tenant}:${collection.name}`] = await store
          .forTenant(tenant)
          .collection(collection.name)
          .find({}, { sort: [['_id', 1]] });
  return result;
}

/** The projections' collections as a replay of the whole log builds them (collectionsOf's shape). */
export async function replayed(log: EventLog, projections: Projection[], tenants: string[]): Promise<Record<string, unknown[]>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-replay-'));
  const fresh = new SqliteDocumentStore(path.join(dir, 'replayed.sqlite'));
  const search = await MiniSearchIndex.open({ dir: null, flushIntervalMs: 0, partitions: LOT_SEARCH_PARTITION });
  try {
    const replay = new ProjectorRuntime({ log, documents: fresh, search, logger: createLogger({ level: 'silent' }) }, projections);
    await replay.setup();
    await replay.catchUp();
    return await collectionsOf(fresh, projections, tenants);
  } finally {
    await search.close();
    await fresh.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
