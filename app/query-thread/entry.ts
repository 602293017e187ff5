/**
 * The lot index's worker thread when the read models are embedded (SQLite): the index (serveIndex) and the
 * handlers of THREAD_OPERATIONS, run on a read connection of the read models' file of its own (WAL: it reads what
 * the projectors committed, without waiting for them). The event loop that serves requests only hands the call
 * over and sends the answer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { serveIndex, type ExtraCall } from '../../src/adapters/embedded/minisearch/thread-worker.ts';
import { DerivedValues } from '../../src/http/derived-values.ts';
import { COMPRESS_THRESHOLD, encode } from '../../src/http/compression.ts';
import type { OffLoopAnswer, OffLoopCall } from '../../src/http/off-loop.ts';
import { weakEtag } from '../../src/http/response-cache.ts';
import type { TenantContext } from '../../src/http/operation.ts';
import { tenantSearch } from '../../src/http/tenant-engines.ts';
import { THREAD_OPERATIONS } from './operations.ts';

export interface QueryCall extends ExtraCall {
  op: 'query';
  operationId: string;
  input: unknown;
  call: OffLoopCall;
}

/** What the thread is started with beside the index's options (queryThreadEntry). */
export interface QueryThreadData {
  readModels: string;
  mmapBytes: number;
}

if (parentPort) {
  const data = workerData as { index: Parameters<typeof serveIndex>[1]; extra: QueryThreadData };
  const operations = new Map(THREAD_OPERATIONS.map((op) => [op.route.operationId, op]));
  let documents: SqliteDocumentStore | null = null;
  // Each tenant's values under the newest catalogue version a call brought (a newer one only makes them fresher).
  const versions = new Map<string, string | null>();
  const derived = new DerivedValues((tenant) => versions.get(tenant) ?? null);

  const served = serveIndex(parentPort, data.index, async (message) => {
    const { operationId, input, call } = message as QueryCall;
    const operation = operations.get(operationId);
    const index = served.index();
    if (message.op !== 'query' || !operation || !index) throw new Error(`the lot index's thread cannot run ${operationId}`);
    documents ??= new SqliteDocumentStore(data.extra.readModels, { mmapBytes: data.extra.mmapBytes });
    const id = call.tenant.Tenant;
    versions.set(id, call.version);
    let changesAt: number | null = null;
    // What a catalogue handler reads of its context; the rest of TenantContext is not there (THREAD_OPERATIONS).
    const ctx = {
      requestId: call.requestId,
      now: new Date(call.nowMs),
      tenant: call.tenant,
      language: call.language,
      db: documents.forTenant(id),
      search: tenantSearch(index, id),
      derived: (key: string, compute: () => Promise<unknown>, stillTrue?: (value: unknown) => boolean) =>
        derived.get(id, key, compute, stillTrue),
      changesAt: (time: number) => {
        changesAt = Math.min(changesAt ?? Number.POSITIVE_INFINITY, time);
      },
    } as unknown as TenantContext;
    const result = await operation.handler(input as never, ctx as never);
    // Serialised and compressed here too, as the shell would (jsonEntry, sendCompressed): the loop only sends.
    const body = Buffer.from(JSON.stringify(result), 'utf8');
    const encoded =
      call.encoding !== 'identity' && body.length > COMPRESS_THRESHOLD ? { [call.encoding]: encode(body, call.encoding) } : {};
    return { body, etag: weakEtag(body), encoded, changesAt } satisfies OffLoopAnswer;
  });
}
