import { Redis } from 'ioredis';
import { holderIsGone, type LeaseHolder, type LeaseStore } from '../../ports/leases.ts';
import { countRedisRoundTrips } from '../../round-trips.ts';

// KEYS[1] lease key; ARGV[1] expected current value ('' = absent), ARGV[2] new value, ARGV[3] ttl ms.
const SWAP = `
local current = redis.call('GET', KEYS[1])
if (current == false and ARGV[1] == '') or current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;
// KEYS[1] lease key; ARGV[1] holder id; ARGV[2] ttl ms ('' = delete).
const IF_HOLDER = `
local current = redis.call('GET', KEYS[1])
if current == false then return 0 end
if cjson.decode(current).id ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

/** Leases in Redis: a key per lease that expires by itself; every change is a compare-and-set script. */
export class RedisLeases implements LeaseStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'bidder:lease:',
  ) {
    this.redis = countRedisRoundTrips(new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 }));
  }

  async acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<{ acquired: true } | { acquired: false; heldBy: LeaseHolder }> {
    const key = this.prefix + name;
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.redis.get(key);
      if (current) {
        const heldBy = JSON.parse(current) as LeaseHolder;
        if (heldBy.id !== holder.id && !holderIsGone(heldBy, holder)) return { acquired: false as const, heldBy };
      }
      const swapped = await this.redis.eval(SWAP, 1, key, current ?? '', JSON.stringify(holder), String(ttlMs));
      if (swapped === 1) return { acquired: true as const };
    }
    const heldBy = JSON.parse((await this.redis.get(key)) ?? 'null') as LeaseHolder | null;
    return heldBy ? { acquired: false as const, heldBy } : this.acquire(name, holder, ttlMs);
  }

  async renew(name: string, holder: LeaseHolder, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(IF_HOLDER, 1, this.prefix + name, holder.id, String(ttlMs))) === 1;
  }

  async release(name: string, holder: LeaseHolder): Promise<void> {
    await this.redis.eval(IF_HOLDER, 1, this.prefix + name, holder.id, '');
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
