/** The events projections set aside in the MongoDB read-model store (collection `_parked`, src/projector/parking.ts). */
import type { AnyBulkWriteOperation, ClientSession, Collection as MongoCollection } from 'mongodb';
import type { ParkedCount, ParkedEvent } from '../../ports/read-models.ts';

/** An event a projection set aside, under its checkpoint's name (`_parked`). */
export interface ParkedDoc extends Omit<ParkedEvent, 'streamId'> {
  _id: string;
  projection: string;
  stream: string;
}

const parkedId = (projection: string, position: number) => `${projection}\u0000${position}`;

/** The parked events of a checkpoint's name, by position. */
export async function readParked(parked: MongoCollection<ParkedDoc>, projection: string, session?: ClientSession): Promise<ParkedEvent[]> {
  const docs = await parked.find({ projection }, { sort: [['position', 1]], session }).toArray();
  return docs.map(({ _id, projection: _p, stream, ...event }) => ({ ...event, streamId: stream }));
}

/** How many events each checkpoint's name holds parked, held and skipped. */
export async function countParked(parked: MongoCollection<ParkedDoc>): Promise<ParkedCount[]> {
  const count = (state: string) => ({ $sum: { $cond: [{ $eq: ['$state', state] }, 1, 0] } });
  const groups = await parked
    .aggregate<{ _id: string; parked: number; held: number; skipped: number }>([
      { $group: { _id: '$projection', parked: count('parked'), held: count('held'), skipped: count('skipped') } },
      { $sort: { _id: 1 } },
    ])
    .toArray();
  return groups.map(({ _id, parked: n, held, skipped }) => ({ projection: _id, parked: n, held, skipped }));
}

/** Parked events, each replacing the one at its position (when it was first set aside is kept). */
export async function writeParked(
  parked: MongoCollection<ParkedDoc>,
  projection: string,
  events: readonly ParkedEvent[],
  session?: ClientSession,
): Promise<void> {
  if (events.length === 0) return;
  const ids = events.map((e) => parkedId(projection, e.position));
  const first = new Map((await parked.find({ _id: { $in: ids } }, { session }).toArray()).map((doc) => [doc._id, doc.firstAt]));
  const writes: AnyBulkWriteOperation<ParkedDoc>[] = events.map(({ streamId, ...event }, i) => ({
    replaceOne: {
      filter: { _id: ids[i] },
      replacement: { ...event, _id: ids[i], projection, stream: streamId, firstAt: first.get(ids[i]) ?? event.firstAt },
      upsert: true,
    },
  }));
  await parked.bulkWrite(writes, { session, ordered: true });
}

/** Deletes a name's parked events that `which` picks; answers the positions of those it left. */
export async function deleteParked(
  parked: MongoCollection<ParkedDoc>,
  projection: string,
  which: (doc: ParkedDoc) => boolean,
  session?: ClientSession,
): Promise<Set<number>> {
  const docs = await parked.find({ projection }, { session }).toArray();
  const doomed = docs.filter(which);
  if (doomed.length > 0)
    await parked.bulkWrite(
      doomed.map((doc) => ({ deleteOne: { filter: { _id: doc._id } } })),
      { session, ordered: true },
    );
  return new Set(docs.filter((doc) => !which(doc)).map((doc) => doc.position));
}
