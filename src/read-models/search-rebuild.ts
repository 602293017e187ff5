// The rebuild protocol of the SearchIndex port written once: a fresh copy filled beside the live one, then
// swapped in with its checkpoint or dropped; each adapter supplies only its engine's steps.
import type { SearchDocument, SearchRebuild } from '../ports/search.ts';

/** What an engine does for a rebuild of one collection; the order and the checks are the protocol's. */
export interface SearchRebuildSteps {
  /** Throws when the index is closed. */
  assertOpen(): void;
  upsert(tenant: string, docs: SearchDocument[]): Promise<void> | void;
  update(tenant: string, docs: SearchDocument[]): Promise<void> | void;
  delete(tenant: string, ids: string[]): Promise<void> | void;
  /** Makes the copy the live one. Once this succeeded the copy is never dropped as a rebuild's. */
  swap(position: number): Promise<void> | void;
  /** What follows the swap: the checkpoint where the swap did not move it, the replaced copy, persistence. */
  settle(position: number): Promise<void>;
  /** Drops the copy (abort). */
  discard(): Promise<void> | void;
}

/**
 * A SearchRebuild over an engine's steps. Writes go to the copy while the rebuild is open; finish() swaps
 * it in, abort() drops it; after either, every call but abort() is refused. `label` names the rebuild in
 * errors.
 */
export function searchRebuild(label: string, steps: SearchRebuildSteps): SearchRebuild {
  let state: 'open' | 'finished' | 'aborted' = 'open';
  const open = () => {
    steps.assertOpen();
    if (state !== 'open') throw new Error(`${label} is ${state}`);
  };
  return {
    upsert: async (tenant, docs) => {
      open();
      await steps.upsert(tenant, docs);
    },
    update: async (tenant, docs) => {
      open();
      await steps.update(tenant, docs);
    },
    delete: async (tenant, ids) => {
      open();
      await steps.delete(tenant, ids);
    },
    finish: async (position) => {
      open();
      await steps.swap(position);
      state = 'finished';
      await steps.settle(position);
    },
    abort: async () => {
      if (state !== 'open') return;
      state = 'aborted';
      await steps.discard();
    },
  };
}
