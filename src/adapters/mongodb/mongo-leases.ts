import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { holderIsGone, type LeaseHolder, type LeaseStore } from '../../ports/leases.ts';

interface LeaseDoc {
  _id: string;
  holder: LeaseHolder;
  expires: Date;
}

/**
 * Leases in MongoDB, beside the projections' checkpoints: one document per lease, taken with a conditional
 * upsert (free, expired, ours, or a gone holder's), so two processes can never both hold it: the loser's
 * upsert hits the unique `_id`.
 */
export class MongoLeases implements LeaseStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly leases: Collection<LeaseDoc>,
  ) {}

  static async connect(url: string): Promise<MongoLeases> {
    const client = new MongoClient(url, { writeConcern: { w: 'majority' } });
    await client.connect();
    return new MongoLeases(client, client.db().collection<LeaseDoc>('_leases'));
  }

  async acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<{ acquired: true } | { acquired: false; heldBy: LeaseHolder }> {
    const current = await this.leases.findOne({ _id: name });
    const free =
      !current || current.expires.getTime() <= Date.now() || current.holder.id === holder.id || holderIsGone(current.holder, holder);
    if (!free) return { acquired: false, heldBy: current.holder };
    try {
      // Replaces exactly the document read above (or inserts when there was none): a concurrent taker
      // changed it, or inserted first, and this one then fails.
      const filter = current ? { _id: name, 'holder.id': current.holder.id, expires: current.expires } : { _id: name };
      const result = await this.leases.updateOne(filter, { $set: { holder, expires: new Date(Date.now() + ttlMs) } }, { upsert: !current });
      if (result.matchedCount === 1 || result.upsertedCount === 1) return { acquired: true };
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === 11000)) throw error;
    }
    const winner = await this.leases.findOne({ _id: name });
    return winner ? { acquired: false, heldBy: winner.holder } : this.acquire(name, holder, ttlMs);
  }

  async renew(name: string, holder: LeaseHolder, ttlMs: number): Promise<boolean> {
    const result = await this.leases.updateOne({ _id: name, 'holder.id': holder.id }, { $set: { expires: new Date(Date.now() + ttlMs) } });
    return result.matchedCount === 1;
  }

  async release(name: string, holder: LeaseHolder): Promise<void> {
    await this.leases.deleteOne({ _id: name, 'holder.id': holder.id });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
