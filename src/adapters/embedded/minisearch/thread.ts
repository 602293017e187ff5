/**
 * The embedded lot index in a worker thread of its own: the SearchIndex port over messages to a MiniSearchIndex
 * that thread opens (thread-worker.ts). Searches, loads and snapshot writes then run beside the event loop that
 * serves requests instead of on it; the index is in the thread's heap only, so it costs no more memory than in
 * process.
 *
 *   const index = await MiniSearchThread.open({ dir: 'data/search', partitions: { lots: 'Language' } });
 *
 * Calls are answered in the order they were sent (one thread, FIFO messages), so a search sent after an upsert
 * resolved sees it. Checkpoints are kept here as well: this side makes every change to them, so getCheckpoint
 * answers without a message. If the thread stops unexpectedly every call fails from then on and `onFatal` is
 * called (the service stops: the changes since the last snapshot are gone, and a replay from the snapshot's
 * checkpoints restores them).
 */
import type { Worker } from 'node:worker_threads';
import type {
  SearchCollectionSpec,
  SearchDocument,
  SearchIndex,
  SearchRebuild,
  SearchRequest,
  SearchResult,
} from '../../../ports/search.ts';
import { moduleWorker, siblingModule } from '../../../module-worker.ts';
import type { MiniSearchIndexOptions } from './index.ts';
import type { ErrorDetails, ExtraCall, ThreadCall, ThreadMessage } from './thread-worker.ts';

export interface MiniSearchThreadOptions extends Omit<MiniSearchIndexOptions, 'onError'> {
  /** An automatic flush failed or the snapshot could not be loaded (default: console.error). */
  onError?: (error: unknown) => void;
  /** The thread stopped on its own (default: onError). */
  onFatal?: (error: Error) => void;
  /**
   * The thread's entry module (default: thread-entry.ts, the index alone); one of its own serves the index with
   * serveIndex (thread-worker.ts) and may answer more calls (`ask`). It gets `{ index, extra: entryData }`.
   */
  entry?: { module: URL; data: unknown };
}

/** A call of the thread refused: its message, and an AppError's status, title and extra when it was one. */
export class ThreadCallError extends Error {
  constructor(
    message: string,
    readonly details: ErrorDetails | undefined,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class MiniSearchThread implements SearchIndex {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | null = null;
  /** close() was called: later calls are refused, and the thread's exit is expected. */
  private closing = false;
  private readonly checkpoints = new Map<string, number>();
  private readonly onError: (error: unknown) => void;

  private constructor(
    private readonly worker: Worker,
    options: MiniSearchThreadOptions,
  ) {
    this.onError = options.onError ?? ((e) => console.error('search index:', e));
    const onFatal = options.onFatal ?? this.onError;
    worker.on('message', (m: ThreadMessage) => this.receive(m));
    worker.on('error', (error) => this.fail(error instanceof Error ? error : new Error(String(error)), onFatal));
    worker.on('exit', (code) => {
      if (!this.closing) this.fail(new Error(`the search index thread stopped (exit code ${code})`), onFatal);
    });
  }

  /** Starts the thread and waits until it has loaded the snapshot (as MiniSearchIndex.open does). */
  static async open(options: MiniSearchThreadOptions): Promise<MiniSearchThread> {
    const { onError, onFatal, entry, ...indexOptions } = options;
    void onError;
    void onFatal;
    const module = entry?.module ?? siblingModule('./thread-entry.ts', import.meta.url);
    const worker = moduleWorker(module, { workerData: { index: indexOptions, extra: entry?.data ?? null } });
    const thread = new MiniSearchThread(worker, options);
    const checkpoints = (await thread.call({ op: 'open' })) as Array<[string, number]>;
    for (const [name, position] of checkpoints) thread.checkpoints.set(name, position);
    return thread;
  }

  private receive(m: ThreadMessage): void {
    if (m.kind === 'error-report') {
      this.onError(Object.assign(new Error(m.message), m.code === undefined ? {} : { code: m.code }));
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.kind === 'ok') p.resolve(m.value);
    else p.reject(m.details ? new ThreadCallError(m.message, m.details) : Object.assign(new Error(m.message), { name: m.name }));
  }

  private fail(error: Error, onFatal: (error: Error) => void): void {
    if (this.failure) return;
    this.failure = error;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    onFatal(error);
  }

  /** A call the thread's own entry answers (see `entry`). */
  ask(call: ExtraCall): Promise<unknown> {
    return this.call(call);
  }

  private call(call: ThreadCall | ExtraCall, whileClosing = false): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing && !whileClosing) return Promise.reject(new Error('the search index is closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...call });
    });
  }

  async ensureCollection(spec: SearchCollectionSpec): Promise<void> {
    await this.call({ op: 'ensureCollection', spec });
  }

  async upsert(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    await this.call({ op: 'upsert', collection, tenant, docs });
  }

  async update(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    await this.call({ op: 'update', collection, tenant, docs });
  }

  async delete(collection: string, tenant: string, ids: string[]): Promise<void> {
    await this.call({ op: 'delete', collection, tenant, ids });
  }

  search(collection: string, tenant: string, request: SearchRequest): Promise<SearchResult> {
    return this.call({ op: 'search', collection, tenant, request }) as Promise<SearchResult>;
  }

  async getCheckpoint(projection: string): Promise<number> {
    if (this.failure) throw this.failure;
    if (this.closing) throw new Error('the search index is closed');
    return this.checkpoints.get(projection) ?? 0;
  }

  async setCheckpoint(projection: string, position: number): Promise<void> {
    await this.call({ op: 'setCheckpoint', projection, position });
    this.checkpoints.set(projection, position);
  }

  async startRebuild(collection: string, projection: string): Promise<SearchRebuild> {
    const rebuild = (await this.call({ op: 'startRebuild', collection, projection })) as number;
    return {
      upsert: async (tenant, docs) => void (await this.call({ op: 'rebuild.upsert', rebuild, tenant, docs })),
      update: async (tenant, docs) => void (await this.call({ op: 'rebuild.update', rebuild, tenant, docs })),
      delete: async (tenant, ids) => void (await this.call({ op: 'rebuild.delete', rebuild, tenant, ids })),
      finish: async (position) => {
        await this.call({ op: 'rebuild.finish', rebuild, position });
        this.checkpoints.set(projection, position);
      },
      abort: async () => void (await this.call({ op: 'rebuild.abort', rebuild })),
    };
  }

  /** Writes what changed (MiniSearchIndex.flush, in the thread). */
  async flush(): Promise<void> {
    await this.call({ op: 'flush' });
  }

  /** Flushes and closes the index in the thread, then ends the thread. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    try {
      if (!this.failure) await this.call({ op: 'close' }, true);
    } finally {
      await this.worker.terminate();
    }
  }
}
