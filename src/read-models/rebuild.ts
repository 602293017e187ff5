// The rebuild and alias-swap protocol of the DocumentStore port, written once for every engine: adapters
// supply only their engine's steps (RebuildEngine) and delegate startRebuild() to startRebuild() here.
import type { RebuildTarget, WriteOp, WriteTarget } from '../ports/read-models.ts';

/** A fresh physical copy of one collection, written by a rebuild before the swap. */
export interface RebuildCopy {
  name: string;
  physical: string;
}

/**
 * One step of the swap. The engine runs them in order, in one transaction: `readCheckpoint` answers the
 * position (0 when there is none), `pointAlias` answers the physical copy the alias named until then.
 */
export type SwapStep =
  | { step: 'readCheckpoint'; checkpoint: string }
  | { step: 'pointAlias'; name: string; physical: string }
  | { step: 'writeCheckpoint'; checkpoint: string; position: number }
  /** The events `from` set aside replace those of `to`, but for the ones an operator skipped (kept). */
  | { step: 'moveParked'; from: string; to: string }
  /** The checkpoint and the events it set aside. */
  | { step: 'deleteCheckpoint'; checkpoint: string };

export type SwapReply = number | string | void;

/** The swap as steps (a generator: SQLite runs it synchronously, MongoDB with awaits); ends with the replaced copies, or null. */
export type SwapSteps = Generator<SwapStep, string[] | null, SwapReply>;

/** What an engine does for a rebuild; the order, the checks and the checkpoints are the protocol's. */
export interface RebuildEngine<C extends RebuildCopy> {
  /** A new, empty physical copy of a collection under a name no other copy has, without its secondary indexes. */
  createCopy(name: string): Promise<C>;
  /** Builds a copy's declared indexes (once, at the end: cheaper than keeping them up to date write by write). */
  indexCopy(copy: C): Promise<void>;
  dropCopy(copy: C): Promise<void>;
  /** Deletes a checkpoint and the events set aside under its name. */
  deleteCheckpoint(checkpoint: string): Promise<void>;
  /** Writes to the copies (`physicalOf`), moving checkpoint `checkpoint` with optimistic concurrency. */
  target(physicalOf: (name: string) => string, checkpoint: string): WriteTarget;
  /** Runs the steps in one transaction (a new run of `steps()` whenever the engine retries the transaction). */
  swap(steps: () => SwapSteps): Promise<string[] | null>;
  /** After a swap: this process's caches, and the replaced copies dropped now or once no reader can hold them. */
  swapped(replaced: string[], copies: C[]): Promise<void>;
}

/** The checkpoint a rebuild of `projection` moves until its swap. */
export function rebuildCheckpoint(projection: string): string {
  return `${projection}#rebuild`;
}

/** Whether a checkpoint's name is a rebuild's (rebuildCheckpoint), not a projection's. */
export function isRebuildCheckpoint(name: string): boolean {
  return name.endsWith('#rebuild');
}

/**
 * Swaps when the rebuilt copies are at least where the live ones are: when a running projector brought the
 * live copy further, swapping now would hide its writes until it replayed them, so nothing is swapped and
 * the caller catches up first. The check and the swap are in one transaction.
 */
export function* swapSteps(projection: string, copies: Iterable<RebuildCopy>): SwapSteps {
  const shadow = rebuildCheckpoint(projection);
  const position = (yield { step: 'readCheckpoint', checkpoint: shadow }) as number;
  if (((yield { step: 'readCheckpoint', checkpoint: projection }) as number) > position) return null;
  const replaced: string[] = [];
  for (const { name, physical } of copies) replaced.push((yield { step: 'pointAlias', name, physical }) as string);
  yield { step: 'writeCheckpoint', checkpoint: projection, position };
  // What the rebuild set aside is what a replay sets aside: it replaces the live list, but for the skips.
  yield { step: 'moveParked', from: shadow, to: projection };
  yield { step: 'deleteCheckpoint', checkpoint: shadow };
  return replaced;
}

/** Runs swap steps with an engine whose transaction is synchronous. */
export function runSwapSync(steps: SwapSteps, run: (step: SwapStep) => SwapReply): string[] | null {
  let next = steps.next();
  while (!next.done) next = steps.next(run(next.value));
  return next.value;
}

/** Runs swap steps with an engine whose transaction is asynchronous. */
export async function runSwap(steps: SwapSteps, run: (step: SwapStep) => Promise<SwapReply>): Promise<string[] | null> {
  let next = steps.next();
  while (!next.done) next = steps.next(await run(next.value));
  return next.value;
}

function writtenKey(collection: string, tenant: string, id: string): string {
  return `${collection}\u0000${tenant}\u0000${id}`;
}

function opId(op: WriteOp): string {
  return op.op === 'put' ? op.doc._id : op.id;
}

/**
 * Rebuilds into fresh copies of `collections`: reads go on against the live copies until finish() swaps the
 * copies in with the rebuild's checkpoint (see swapSteps), abort() drops them.
 */
export async function startRebuild<C extends RebuildCopy>(
  engine: RebuildEngine<C>,
  projection: string,
  collections: string[],
): Promise<RebuildTarget> {
  const copies = new Map<string, C>();
  for (const name of collections) copies.set(name, await engine.createCopy(name));
  const shadow = rebuildCheckpoint(projection);
  await engine.deleteCheckpoint(shadow);
  const physicalOf = (name: string) => {
    const copy = copies.get(name);
    if (!copy) throw new Error(`collection ${name} is not part of the rebuild of ${projection}`);
    return copy.physical;
  };
  const target = engine.target(physicalOf, shadow);
  // The copies start empty: a document this rebuild has not written yet is absent, without a lookup.
  const written = new Set<string>();
  let indexed = false;
  return {
    get: async (collection, tenant, id) => (written.has(writtenKey(collection, tenant, id)) ? target.get(collection, tenant, id) : null),
    commit: async (ops, checkpoint) => {
      for (const op of ops) physicalOf(op.collection);
      await target.commit(ops, checkpoint);
      for (const op of ops) written.add(writtenKey(op.collection, op.tenant, opId(op)));
    },
    finish: async () => {
      if (!indexed) {
        for (const copy of copies.values()) await engine.indexCopy(copy);
        indexed = true;
      }
      const replaced = await engine.swap(() => swapSteps(projection, copies.values()));
      if (!replaced) return false;
      await engine.swapped(replaced, [...copies.values()]);
      return true;
    },
    abort: async () => {
      for (const copy of copies.values()) await engine.dropCopy(copy);
      await engine.deleteCheckpoint(shadow);
    },
  };
}
