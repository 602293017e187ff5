/**
 * Operations whose handler runs beside the event loop that serves requests (a worker thread app/ composes: the lot
 * search, whose index and reads would hold the loop for milliseconds). The shell checks, caches and answers as
 * for any operation; only the handler's call is handed over, with what a catalogue handler reads of its context.
 */
import type { Tenant } from './access-directory.ts';
import type { Encoding } from './compression.ts';
import type { TenantContext } from './operation.ts';
import type { EncodedCopies } from './send.ts';

export interface OffLoopCall {
  tenant: Tenant;
  language: string;
  /** The request's instant (TenantContext.now). */
  nowMs: number;
  requestId: string;
  /** The tenant's catalogue version now (what TenantContext.derived keeps values under; null: keep none). */
  version: string | null;
  /** The encoding the answer will be sent in (chooseEncoding of the request's Accept-Encoding). */
  encoding: Encoding;
}

/** The handler's answer as the shell sends and keeps it: its JSON bytes, their ETag, and the copy in `encoding`. */
export interface OffLoopAnswer {
  body: Uint8Array;
  etag: string;
  encoded: { gzip?: Uint8Array; br?: Uint8Array };
  /** What the handler told of when its answer changes by itself (TenantContext.changesAt), else null. */
  changesAt: number | null;
}

export interface OffLoopOperations {
  /** The operation is run elsewhere (an anonymous catalogue operation without member or files). */
  has(operationId: string): boolean;
  /** The handler's answer (serialised as jsonEntry would, and compressed); throws its AppError as it would. */
  run(operationId: string, input: unknown, call: OffLoopCall): Promise<OffLoopAnswer>;
}

const bytes = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** The handler's call handed over with the context's part it reads; what it tells of `changesAt` told on. */
export async function runOffLoop(
  offLoop: OffLoopOperations,
  operationId: string,
  input: unknown,
  ctx: TenantContext,
  call: Pick<OffLoopCall, 'version' | 'encoding'>,
): Promise<{ body: Buffer; etag: string; copies: EncodedCopies }> {
  const { tenant, language, now, requestId } = ctx;
  const answer = await offLoop.run(operationId, input, { tenant, language, nowMs: now.getTime(), requestId, ...call });
  if (answer.changesAt !== null) ctx.changesAt(answer.changesAt);
  const copies: EncodedCopies = {};
  if (answer.encoded.gzip) copies.gzip = bytes(answer.encoded.gzip);
  if (answer.encoded.br) copies.br = bytes(answer.encoded.br);
  return { body: bytes(answer.body), etag: answer.etag, copies };
}
