import type { Config, Role } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { SearchIndex } from '../src/ports/search.ts';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import { LOT_SEARCH_PARTITION } from '../projections/lot-search/index.ts';

/**
 * The embedded lot index lives in a process's memory. The process that runs the projectors (`all`,
 * `projector`) keeps it and writes its snapshots under DATA_DIR/search; an `api` process keeps a replica:
 * it loads the latest snapshot and follows the log itself, never writing the folder. A `worker` needs none.
 */
export async function openEmbeddedSearch(config: Config, logger: Logger, role: Role, dir: string): Promise<SearchIndex> {
  const onError = (error: unknown) => logger.error({ err: String(error) }, 'search index');
  if (role === 'worker') return MiniSearchIndex.open({ dir: null, partitions: LOT_SEARCH_PARTITION, onError });
  if (role === 'api') return MiniSearchIndex.open({ dir, readOnly: true, partitions: LOT_SEARCH_PARTITION, onError });
  return MiniSearchIndex.open({ dir, flushIntervalMs: config.searchFlushIntervalMs, partitions: LOT_SEARCH_PARTITION, onError });
}
