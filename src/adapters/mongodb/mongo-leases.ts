import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { mongoClientOptions } from './mongo-documents.ts';
import { holderIsGone, type LeaseHolder, type LeaseStore } from '../../ports/leases.ts';

export interface LeaseDoc {
  _id: string;
  holder: LeaseHolder;
  expires: Date;
}

const DUPLICATE_KEY = 11000;

/**
 * Leases in MongoDB, beside the projections' checkpoints: one document per lease. A free lease is claimed
 * with an insert, so of two claimants the second hits the unique `_id` (an upsert would not do: MongoDB
 * retries an upsert that meets a duplicate key on an `_id` equality as an update, and both would win). A
 * held one (expired, ours, or a gone holder's) is taken with an update conditional on the document read.
 */
export class MongoLeases implements LeaseStore {
  private constructor(
    private readonly client: MongoClient | null,
    private readonly leases: Collection<LeaseDoc>,
  ) {}

  /** `timeoutMs` bounds each call as the read models' (mongoClientOptions). */
  static async connect(url: string, options: { timeoutMs?: number } = {}): Promise<MongoLeases> {
    const client = new MongoClient(url, mongoClientOptions(options.timeoutMs));
    await client.connect();
    return new MongoLeases(client, client.db().collection<LeaseDoc>('_leases'));
  }

  /** Leases in a collection the caller owns (close leaves its client open): tests over a fake driver. */
  static over(leases: Collection<LeaseDoc>): MongoLeases {
    return new MongoLeases(null, leases);
  }

  async acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<{ acquired: true } | { acquired: false; heldBy: LeaseHolder }> {
    const current = await this.leases.findOne({ _id: name });
    const free =
      !current || current.expires.getTime() <= Date.now() || current.holder.id === holder.id || holderIsGone(current.holder, holder);
    if (!free) return { acquired: false, heldBy: current.holder };
    const expires = new Date(Date.now() + ttlMs);
    if (!current) {
      try {
        await this.leases.insertOne({ _id: name, holder, expires });
        return { acquired: true };
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      }
    } else {
      // Replaces exactly the document read above: a concurrent taker changed it, and this one then fails.
      const filter = { _id: name, 'holder.id': current.holder.id, expires: current.expires };
      const result = await this.leases.updateOne(filter, { $set: { holder, expires } });
      if (result.matchedCount === 1) return { acquired: true };
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
    await this.client?.close();
  }
}
