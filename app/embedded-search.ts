import type { Config, Role } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { SearchIndex } from '../src/ports/search.ts';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import { SqliteSearchIndex } from '../src/adapters/embedded/sqlite-search/index.ts';
import { LOT_SEARCH_PARTITION } from '../projections/lot-search/index.ts';

export interface EmbeddedSearch {
  search: SearchIndex;
  /** This process keeps the index up to date itself (a MiniSearch replica in an `api` process). */
  inProcess: boolean;
  describe: string;
}

/**
 * The embedded lot index (EMBEDDED_SEARCH). MiniSearch (the default): in a process's memory; the process running
 * the projectors (`all`, `projector`) writes its snapshots under DATA_DIR/search, an `api` process keeps a
 * replica it loads from them and follows the log itself. FTS5: one SQLite file, DATA_DIR/search.sqlite, that
 * the projectors' process writes and `api` processes read. A `worker` needs none.
 */
export async function openEmbeddedSearch(
  config: Config,
  logger: Logger,
  role: Role,
  paths: { search: string; searchFile: string },
): Promise<EmbeddedSearch> {
  const dir = paths.search;
  const onError = (error: unknown) => logger.error({ err: String(error) }, 'search index');
  const partitions = LOT_SEARCH_PARTITION;
  if (config.embeddedSearch === 'fts5') {
    const file = paths.searchFile;
    if (role === 'worker')
      return { search: await SqliteSearchIndex.open({ file: null, partitions }), inProcess: false, describe: 'embedded, empty' };
    const readOnly = role === 'api';
    const search = await SqliteSearchIndex.open({ file, readOnly, partitions });
    return { search, inProcess: !readOnly, describe: `embedded FTS5 ${file}${readOnly ? ' (read)' : ''}` };
  }
  if (role === 'worker')
    return { search: await MiniSearchIndex.open({ dir: null, partitions, onError }), inProcess: false, describe: 'embedded, empty' };
  if (role === 'api') {
    const search = await MiniSearchIndex.open({ dir, readOnly: true, partitions, onError });
    return { search, inProcess: true, describe: `embedded MiniSearch replica in memory (from ${dir})` };
  }
  const search = await MiniSearchIndex.open({ dir, flushIntervalMs: config.searchFlushIntervalMs, partitions, onError });
  return { search, inProcess: true, describe: `embedded MiniSearch ${dir}` };
}
