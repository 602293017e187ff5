// What a worker thread of MiniSearchThread (thread.ts) runs: a MiniSearchIndex opened with the options it was
// started with, answering the port's calls in the order sent; a thread entry may add calls of its own (`extra`).
import type { MessagePort } from 'node:worker_threads';
import type { SearchCollectionSpec, SearchDocument, SearchRebuild, SearchRequest } from '../../../ports/search.ts';
import { MiniSearchIndex, type MiniSearchIndexOptions } from './index.ts';

export type ThreadCall =
  | { op: 'open' }
  | { op: 'ensureCollection'; spec: SearchCollectionSpec }
  | { op: 'upsert' | 'update'; collection: string; tenant: string; docs: SearchDocument[] }
  | { op: 'delete'; collection: string; tenant: string; ids: string[] }
  | { op: 'search'; collection: string; tenant: string; request: SearchRequest }
  | { op: 'setCheckpoint'; projection: string; position: number }
  | { op: 'startRebuild'; collection: string; projection: string }
  | { op: 'rebuild.upsert' | 'rebuild.update'; rebuild: number; tenant: string; docs: SearchDocument[] }
  | { op: 'rebuild.delete'; rebuild: number; tenant: string; ids: string[] }
  | { op: 'rebuild.finish'; rebuild: number; position: number }
  | { op: 'rebuild.abort'; rebuild: number }
  | { op: 'flush' }
  | { op: 'close' };

export type ThreadMessage =
  | { kind: 'ok'; id: number; value: unknown }
  | { kind: 'failed'; id: number; name: string; message: string; details?: ErrorDetails }
  | { kind: 'error-report'; message: string; code?: string };

/** What an error thrown by an `extra` call carries beside its message (an AppError's status, title and extra). */
export interface ErrorDetails {
  status: number;
  title: string;
  extra: unknown;
}

const detailsOf = (e: Error): ErrorDetails | undefined => {
  const { status, title, extra } = e as Error & Partial<ErrorDetails>;
  return typeof status === 'number' && typeof title === 'string' ? { status, title, extra } : undefined;
};

const codeOf = (e: unknown) => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

const errorText = (e: unknown) => (e instanceof Error ? (e.cause ? `${e.message}: ${String(e.cause)}` : e.message) : String(e));

/** A call the index does not know, for the thread entry's own `extra` handler. */
export interface ExtraCall {
  op: string;
  [field: string]: unknown;
}

/**
 * Serves the index's calls on `port`; calls of another `op` go to `extra`. Answers `index()`: the opened index
 * (null before the first call, `open`).
 */
export function serveIndex(
  port: MessagePort,
  options: Omit<MiniSearchIndexOptions, 'onError'>,
  extra: (call: ExtraCall) => Promise<unknown> = (call) => Promise.reject(new Error(`unknown call ${call.op}`)),
): { index(): MiniSearchIndex | null } {
  let index: MiniSearchIndex | null = null;
  const rebuilds = new Map<number, SearchRebuild>();
  let nextRebuild = 1;
  const opened = () => {
    if (!index) throw new Error('the search index is not open');
    return index;
  };
  const rebuild = (id: number) => {
    const r = rebuilds.get(id);
    if (!r) throw new Error(`no rebuild ${id} in the search index thread`);
    return r;
  };

  const run = async (call: ThreadCall | ExtraCall): Promise<unknown> => {
    const c = call as ThreadCall;
    switch (c.op) {
      case 'open': {
        index = await MiniSearchIndex.open({
          ...options,
          // The error's code goes too: a flush that found no room (ENOSPC) is told apart by it.
          onError: (e) => port.postMessage({ kind: 'error-report', message: errorText(e), code: codeOf(e) } satisfies ThreadMessage),
        });
        return index.checkpointEntries();
      }
      case 'ensureCollection':
        return opened().ensureCollection(c.spec);
      case 'upsert':
        return opened().upsert(c.collection, c.tenant, c.docs);
      case 'update':
        return opened().update(c.collection, c.tenant, c.docs);
      case 'delete':
        return opened().delete(c.collection, c.tenant, c.ids);
      case 'search':
        return opened().searchSync(c.collection, c.tenant, c.request);
      case 'setCheckpoint':
        return opened().setCheckpoint(c.projection, c.position);
      case 'startRebuild': {
        const id = nextRebuild++;
        rebuilds.set(id, await opened().startRebuild(c.collection, c.projection));
        return id;
      }
      case 'rebuild.upsert':
        return rebuild(c.rebuild).upsert(c.tenant, c.docs);
      case 'rebuild.update':
        return rebuild(c.rebuild).update(c.tenant, c.docs);
      case 'rebuild.delete':
        return rebuild(c.rebuild).delete(c.tenant, c.ids);
      // A finished or aborted rebuild stays listed: it refuses later calls as the in-process one does.
      case 'rebuild.finish':
        return rebuild(c.rebuild).finish(c.position);
      case 'rebuild.abort':
        return rebuild(c.rebuild).abort();
      case 'flush':
        return opened().flush();
      case 'close':
        return index?.close();
      default:
        return extra(call as ExtraCall);
    }
  };

  // Each call runs as it arrives, as in one process: the synchronous part of every call (a search, an upsert)
  // runs in the order sent, and a flush in progress does not hold searches up.
  port.on('message', (message: (ThreadCall | ExtraCall) & { id: number }) => answer(port, message.id, run(message)));
  return { index: () => index };
}

/** Posts what a call came to on `port`: its value, or its error with what that carries. */
function answer(port: MessagePort, id: number, result: Promise<unknown>): void {
  result.then(
    (value) => port.postMessage({ kind: 'ok', id, value: value ?? null } satisfies ThreadMessage),
    (e: unknown) => {
      const error = e instanceof Error ? e : new Error(String(e));
      const failed: ThreadMessage = {
        kind: 'failed',
        id,
        name: error.name,
        message: error.message,
        details: detailsOf(error),
      };
      port.postMessage(failed);
    },
  );
}
