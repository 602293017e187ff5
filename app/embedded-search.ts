import type { Config, Role } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { SearchIndex } from '../src/ports/search.ts';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import { MiniSearchThread } from '../src/adapters/embedded/minisearch/thread.ts';
import type { OffLoopOperations } from '../src/http/off-loop.ts';
import { QueryThread, queryThreadEntry } from './query-thread/index.ts';
import { SqliteSearchIndex } from '../src/adapters/embedded/sqlite-search/index.ts';
import { LOT_SEARCH_PARTITION } from '../projections/lot-search/index.ts';
import type { StorageFaults } from '../src/storage-room.ts';

export interface EmbeddedSearch {
  search: SearchIndex;
  /** This process keeps the index up to date itself (a MiniSearch replica in an `api` process). */
  inProcess: boolean;
  describe: string;
  /** The operations run in the index's thread (with embedded read models), else null. */
  offLoop: OffLoopOperations | null;
}

/**
 * The embedded lot index (EMBEDDED_SEARCH). MiniSearch (the default): in a process's memory; the process running
 * the projectors (`all`, `projector`) writes its snapshots under DATA_DIR/search, an `api` process keeps a
 * replica it loads from them and follows the log itself. A process that answers searches (`thread`: SEARCH_THREAD,
 * on by default) keeps it in a worker thread of its own (minisearch/thread.ts), so searches leave the event loop
 * that serves requests; `onFatal` is told if that thread stops. FTS5: one SQLite file, DATA_DIR/search.sqlite, that
 * the projectors' process writes and `api` processes read. A `worker` needs none.
 */
export async function openEmbeddedSearch(
  config: Config,
  logger: Logger,
  role: Role,
  paths: { search: string; searchFile: string },
  thread: {
    use: boolean;
    onFatal(reason: string): void;
    /** The embedded read models' file, which the thread reads to run the lot search there (null: not embedded). */
    readModels: string | null;
    /** Told of snapshots that could not be written for want of room (logged once per episode there). */
    storage?: StorageFaults;
  } = { use: false, onFatal: () => undefined, readModels: null },
): Promise<EmbeddedSearch> {
  const dir = paths.search;
  const onError = (error: unknown) => {
    if (!thread.storage?.refused(error, 'search')) logger.error({ err: String(error) }, 'search index');
  };
  const partitions = LOT_SEARCH_PARTITION;
  if (config.embeddedSearch === 'fts5') {
    const file = paths.searchFile;
    if (role === 'worker')
      return {
        search: await SqliteSearchIndex.open({ file: null, partitions }),
        inProcess: false,
        describe: 'embedded, empty',
        offLoop: null,
      };
    const readOnly = role === 'api';
    const search = await SqliteSearchIndex.open({ file, readOnly, partitions });
    return { search, inProcess: !readOnly, describe: `embedded FTS5 ${file}${readOnly ? ' (read)' : ''}`, offLoop: null };
  }
  if (role === 'worker')
    return {
      search: await MiniSearchIndex.open({ dir: null, partitions, onError }),
      inProcess: false,
      describe: 'embedded, empty',
      offLoop: null,
    };
  const options = role === 'api' ? { dir, readOnly: true, partitions } : { dir, flushIntervalMs: config.searchFlushIntervalMs, partitions };
  const where = role === 'api' ? `embedded MiniSearch replica in memory (from ${dir})` : `embedded MiniSearch ${dir}`;
  if (thread.use) {
    const onFatal = (error: Error) => thread.onFatal(`the lot index's thread stopped: ${error.message}`);
    const entry = thread.readModels ? queryThreadEntry(thread.readModels, config.sqliteMmapBytes) : undefined;
    const search = await MiniSearchThread.open({ ...options, onError, onFatal, entry });
    const offLoop = entry ? new QueryThread(search) : null;
    return { search, inProcess: true, describe: `${where}, in a thread of its own${offLoop ? ' with the lot search' : ''}`, offLoop };
  }
  return { search: await MiniSearchIndex.open({ ...options, onError }), inProcess: true, describe: where, offLoop: null };
}
