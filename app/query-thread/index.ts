// The event loop's side of the lot index's thread (entry.ts): runs THREAD_OPERATIONS there, and turns what the
// thread refused back into the AppError the handler threw.
import { MiniSearchThread, ThreadCallError } from '../../src/adapters/embedded/minisearch/thread.ts';
import { AppError } from '../../src/errors.ts';
import { siblingModule } from '../../src/module-worker.ts';
import type { OffLoopAnswer, OffLoopCall, OffLoopOperations } from '../../src/http/off-loop.ts';
import type { QueryCall, QueryThreadData } from './entry.ts';
import { THREAD_OPERATIONS } from './operations.ts';

/** The thread's entry, and what it needs beside the index's options (the read models' file, how much of it to map). */
export const queryThreadEntry = (readModels: string, mmapBytes: number) => ({
  module: siblingModule('./entry.ts', import.meta.url),
  data: { readModels, mmapBytes } satisfies QueryThreadData,
});

export class QueryThread implements OffLoopOperations {
  private readonly ids = new Set(THREAD_OPERATIONS.map((op) => op.route.operationId));

  constructor(private readonly thread: MiniSearchThread) {}

  has(operationId: string): boolean {
    return this.ids.has(operationId);
  }

  async run(operationId: string, input: unknown, call: OffLoopCall): Promise<OffLoopAnswer> {
    const message: QueryCall = { op: 'query', operationId, input, call };
    try {
      return (await this.thread.ask(message)) as OffLoopAnswer;
    } catch (error) {
      if (error instanceof ThreadCallError && error.details) {
        const { status, title, extra } = error.details;
        throw new AppError(status, title, error.message, extra as AppError['extra']);
      }
      throw error;
    }
  }
}
