// One batch of events applied to one projection together with its checkpoint, and the paged read of the log
// behind it: the step that live loops, catch-up and rebuilds share.
import type { EventLog, RecordedEvent } from '../ports/event-log.ts';
import type { DocumentStore, ParkedEvent, WriteTarget } from '../ports/read-models.ts';
import { CheckpointConflictError } from '../ports/read-models.ts';
import type { SearchIndex } from '../ports/search.ts';
import type { Logger } from '../logger.ts';
import type { StorageFaults } from '../storage-room.ts';
import type { Parking } from './parking.ts';
import { SearchBatch, UnitOfWork, type KeptDocuments, type Projection, type Reactor } from './projection.ts';

export interface ProjectorDeps {
  log: EventLog;
  documents: DocumentStore;
  search: SearchIndex;
  logger: Logger;
  /** Told of batches that failed for want of room (a full disk), which it logs once per episode. */
  storage?: StorageFaults;
}

/** Events read at once by catch-up and rebuilds. */
export const PAGE_SIZE = 5000;

/**
 * Where a search projection writes: the live index (its checkpoint kept there) or a rebuild's fresh copy;
 * and the log it reads its events' streams from (SearchBatch.earlier), never the index.
 */
export interface SearchWriter {
  upsert: SearchIndex['upsert'];
  update: SearchIndex['update'];
  delete: SearchIndex['delete'];
  getCheckpoint?(): Promise<number>;
  setCheckpoint(position: number): Promise<void>;
  readStream(streamId: string): Promise<RecordedEvent[]>;
}

/** Writes of a search projection to the live index, with its checkpoint kept there. */
export function liveSearchWriter(deps: Pick<ProjectorDeps, 'search' | 'log'>, projection: Projection): SearchWriter {
  const { search, log } = deps;
  return {
    upsert: search.upsert.bind(search),
    update: search.update.bind(search),
    delete: search.delete.bind(search),
    getCheckpoint: () => search.getCheckpoint(projection.name),
    setCheckpoint: (position: number) => search.setCheckpoint(projection.name, position),
    readStream: (streamId: string) => log.readStream(streamId),
  };
}

/** A projection's stored checkpoint (the search index keeps its own). */
export function storedCheckpoint(deps: ProjectorDeps, projection: Projection): Promise<number> {
  return projection.kind === 'search' ? deps.search.getCheckpoint(projection.name) : deps.documents.getCheckpoint(projection.name);
}

/** What a batch's write takes besides its events, all optional. */
export interface BatchOptions {
  /** Where a search projection writes (required for one). */
  searchWriter?: SearchWriter;
  /** Told, once the batch is stored, of the events the projection handled in it (none: nothing changed) and where it ends. */
  onChange?: (handled: readonly RecordedEvent[], position: number) => void;
  /** Where the batch ends in the log (a filtered read may end past its last event; default its last event's position). */
  end?: number;
  /** The documents a live loop keeps between its batches (see KeptDocuments). */
  kept?: KeptDocuments;
  /** Events set aside in this batch (parking.ts), stored with the checkpoint. */
  parked?: readonly ParkedEvent[];
  /** Where a search projection (whose checkpoint is in its index) stores them, before its index is written. */
  park?: (events: readonly ParkedEvent[]) => Promise<void>;
}

/** Applies one batch of events to a projection and moves its checkpoint (one transaction for documents). */
export async function applyBatch(
  projection: Projection,
  events: RecordedEvent[],
  expected: number,
  target: WriteTarget | null,
  options: BatchOptions = {},
): Promise<number> {
  const { searchWriter, onChange, kept } = options;
  const position = options.end ?? events[events.length - 1].position;
  const parked = options.parked?.length ? { parked: options.parked } : {};
  const handled = events.filter((e) => projection.handles.includes(e.type));
  // Called once the batch is stored, so a reader that sees the new version also sees the new data.
  const stored = (p: number) => (onChange?.(handled, p), p);
  switch (projection.kind) {
    case 'documents': {
      const uow = new UnitOfWork(target!, kept);
      try {
        for (const event of handled) {
          uow.current = event;
          await projection.apply(event, uow);
        }
        await target!.commit(uow.ops(), { projection: projection.name, expected, position, ...parked });
      } catch (error) {
        // Kept documents this batch changed in place are not what the store holds.
        kept?.clear();
        throw error;
      }
      kept?.keep(uow.held());
      return stored(position);
    }
    case 'search': {
      const writer = searchWriter!;
      const batch = new SearchBatch((streamId) => writer.readStream(streamId));
      for (const event of handled) await projection.apply(event, batch);
      const collection = projection.collection.name;
      // The index has no transaction: a checkpoint moved by someone else (a rebuild's alias swap) is noticed
      // before writing, and the loop resumes from it. (On Typesense a swap in the instant between this check
      // and the write is not caught: rebuild the index with the projector stopped for a guarantee.)
      if (writer.getCheckpoint) {
        const current = await writer.getCheckpoint();
        if (current !== expected) throw new CheckpointConflictError(projection.name, expected, current);
      }
      // Before the checkpoint moves past them: a crash in between replays events already set aside, unchanged.
      if (options.parked?.length) await options.park!(options.parked);
      for (const op of batch.ops) {
        if (op.op === 'upsert') await writer.upsert(collection, op.tenant, op.docs);
        else if (op.op === 'update') await writer.update(collection, op.tenant, op.docs);
        else await writer.delete(collection, op.tenant, op.ids);
      }
      await writer.setCheckpoint(position);
      return stored(position);
    }
    case 'reactor': {
      for (const event of handled) await projection.react(event);
      await target!.commit([], { projection: projection.name, expected, position, ...parked });
      return stored(position);
    }
  }
}

/**
 * Applies a batch as applyBatch does, parking what cannot be applied (parking.ts): the events of streams with a
 * parked event held, a failing batch tried again and bisected to the event that fails it, which is set aside with
 * the checkpoint (in the document store under `parking.checkpoint`) while the others are applied.
 */
export function applyParked(
  parking: Parking,
  documents: DocumentStore,
  projection: Projection,
  events: RecordedEvent[],
  expected: number,
  target: WriteTarget | null,
  options: BatchOptions & { end: number },
): Promise<number> {
  const handled = events.filter((e) => projection.handles.includes(e.type));
  const park = (parked: readonly ParkedEvent[]) => documents.park(parking.checkpoint, parked);
  return parking.write(handled, expected, options.end, (apply, held, from, end) =>
    applyBatch(projection, apply, from, target, { ...options, end, parked: held, park }),
  );
}

/** A reactor's part of a batch, without its checkpoint (the live loop stores that within a second). */
export async function react(projection: Reactor, events: RecordedEvent[]): Promise<void> {
  for (const event of events) if (projection.handles.includes(event.type)) await projection.react(event);
}

/**
 * The next page of the log for a projection: only the types it handles where the log can filter them
 * (EventLog.readTypes), and where that page ends in the log.
 */
export async function readPage(
  log: EventLog,
  types: readonly string[],
  from: number,
  maxCount: number,
): Promise<{ events: RecordedEvent[]; end: number }> {
  if (log.readTypes) {
    const { events, position } = await log.readTypes({ fromPosition: from, maxCount, types });
    return { events, end: position };
  }
  const events = await log.readAll({ fromPosition: from, maxCount });
  return { events, end: events.length > 0 ? events[events.length - 1].position : from };
}
