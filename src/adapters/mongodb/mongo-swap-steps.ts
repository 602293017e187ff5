/**
 * The steps of a rebuild's swap on MongoDB (src/read-models/rebuild.ts), each in the swap's transaction: the aliases
 * pointed at the fresh copies (the replaced ones kept until `dropAfter`), the checkpoint and parked events moved.
 */
import type { ClientSession, Collection as MongoCollection } from 'mongodb';
import type { SwapReply, SwapStep } from '../../read-models/rebuild.ts';
import type { AliasDoc, CheckpointDoc } from './mongo-store-docs.ts';
import { deleteParked, readParked, writeParked, type ParkedDoc } from './mongo-parked-events.ts';

/** The store's own collections the steps write. */
export interface SwapCollections {
  aliases: MongoCollection<AliasDoc>;
  checkpoints: MongoCollection<CheckpointDoc>;
  parked: MongoCollection<ParkedDoc>;
}

/** Runs one step of a swap and gives its answer. */
export async function swapStep(store: SwapCollections, step: SwapStep, session: ClientSession, dropAfter: Date): Promise<SwapReply> {
  switch (step.step) {
    case 'readCheckpoint':
      return (await store.checkpoints.findOne({ _id: step.checkpoint }, { session }))?.position ?? 0;
    case 'pointAlias': {
      const alias = await store.aliases.findOne({ _id: step.name }, { session });
      if (!alias) throw new Error(`unknown collection ${step.name}`);
      await store.aliases.updateOne(
        { _id: step.name },
        { $set: { physical: step.physical }, $push: { retired: { physical: alias.physical, dropAfter } } },
        { session },
      );
      return alias.physical;
    }
    case 'writeCheckpoint':
      await store.checkpoints.updateOne(
        { _id: step.checkpoint },
        { $set: { position: step.position, updated: new Date() } },
        { session, upsert: true },
      );
      return;
    case 'moveParked': {
      const kept = await deleteParked(store.parked, step.to, (doc) => doc.state !== 'skipped', session);
      const moved = (await readParked(store.parked, step.from, session)).filter((e) => !kept.has(e.position));
      await writeParked(store.parked, step.to, moved, session);
      return;
    }
    case 'deleteCheckpoint':
      await store.checkpoints.deleteOne({ _id: step.checkpoint }, { session });
      await deleteParked(store.parked, step.checkpoint, () => true, session);
      return;
  }
}
