import { createHash } from 'node:crypto';
import { defineCounter, noCounters, type Counters } from '../counters.ts';

/**
 * What became of each look-up of a cached answer: an operator sees whether pages are served from the cache, and
 * whether writes throw answers away (stale) or the clock does (expired).
 */
export const cacheLookupsCounter = defineCounter({
  name: 'bidder_response_cache_lookups_total',
  help: 'Look-ups of the response cache, by outcome: hit; miss (nothing kept); stale (what it was read from changed); expired (its time passed)',
  labelNames: ['outcome'],
});

export interface CachedResponse {
  /** The UTF-8 bytes, encoded once. */
  body: Buffer;
  etag: string;
  /** The version of what it was read from (for one tenant, or one of its auctions: `auction`). */
  version: string;
  /** The one auction the answer depends on (with the tenant's settings), when it depends on one alone. */
  auction?: number;
  expires: number;
  /** The body compressed, made on the first request that asks for each encoding and kept with the entry. */
  gzip?: Buffer;
  br?: Buffer;
  /** Where the cache holds it (set by `set`). */
  key?: string;
  /** The operation that answered: the fast path serves an entry only to a request it routes to the same one. */
  operationId?: string;
  /** The headers of its 200 per encoding and of its 304, made on first use (src/http/catalogue-fast-path.ts). */
  wire?: Partial<Record<'identity' | 'gzip' | 'br' | 'notModified', string[]>>;
}

export function weakEtag(body: Buffer): string {
  return `W/"${body.length.toString(16)}-${createHash('sha1').update(body).digest('base64url').slice(0, 27)}"`;
}

const sizeOf = (entry: CachedResponse) => entry.body.length + (entry.gzip?.length ?? 0) + (entry.br?.length ?? 0);

/**
 * Serialised answers of catalogue reads, keyed by tenant, language and URL. An entry is used only while
 * what it was read from has not changed (`version`, of its tenant or auction) and until its `expires` (set by the caller), which
 * bounds what the clock changes (a lot closing, an auction starting). Bounded in entries and bytes
 * (compressed copies included).
 *
 * An answer is kept from the second time its key is asked for (a doorkeeper of recently asked keys): the
 * searches a visitor types once would otherwise push out the pages everybody reads. A kept answer that
 * went stale is made again and kept at once.
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private bytes = 0;
  /** Keys asked for once lately, not kept yet (bounded, oldest forgotten first). */
  private readonly askedOnce = new Set<string>();

  constructor(
    /** Where its look-ups are counted (`/metrics`; none when metrics are off). */
    private readonly counters: Counters = noCounters,
    private readonly maxEntries = 5000,
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly maxAskedOnce = 20_000,
  ) {}

  /** The entry kept for the key while it is current: `versionOf` its auction (or its tenant's, when undefined). */
  get(key: string, versionOf: (auction: number | undefined) => string | null, now: number): CachedResponse | null {
    const entry = this.entries.get(key);
    if (!entry) {
      this.counters.inc(cacheLookupsCounter, { outcome: 'miss' });
      return null;
    }
    const stale = entry.version !== versionOf(entry.auction);
    if (stale || entry.expires <= now) {
      this.counters.inc(cacheLookupsCounter, { outcome: stale ? 'stale' : 'expired' });
      this.remove(key, entry);
      // It was asked for often enough to be kept: its fresh answer is kept at once.
      this.rememberAsked(key);
      return null;
    }
    this.counters.inc(cacheLookupsCounter, { outcome: 'hit' });
    return entry;
  }

  /**
   * The entry kept for the key while it is current, else null, changing and counting nothing (the fast path's
   * look-up: a request it passes on is looked up again by the router, which counts it; `served` counts its hits).
   */
  peek(key: string, versionOf: (auction: number | undefined) => string | null, now: number): CachedResponse | null {
    const entry = this.entries.get(key);
    return entry && entry.version === versionOf(entry.auction) && entry.expires > now ? entry : null;
  }

  /** An entry found by `peek` was served. */
  served(): void {
    this.counters.inc(cacheLookupsCounter, { outcome: 'hit' });
  }

  /** Keeps the answer if its key was asked for before (see the class comment); whether it was kept. */
  set(key: string, entry: CachedResponse): boolean {
    if (entry.body.length > 1024 * 1024) return false;
    if (!this.entries.has(key) && !this.askedOnce.delete(key)) {
      this.rememberAsked(key);
      return false;
    }
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    entry.key = key;
    this.entries.set(key, entry);
    this.bytes += sizeOf(entry);
    this.evict();
    return true;
  }

  private rememberAsked(key: string) {
    if (this.askedOnce.size >= this.maxAskedOnce) this.askedOnce.delete(this.askedOnce.values().next().value as string);
    this.askedOnce.add(key);
  }

  /** Keeps a compressed copy of an entry's body with it (counted in the byte budget). */
  addEncoding(entry: CachedResponse, encoding: 'gzip' | 'br', bytes: Buffer) {
    if (entry[encoding]) return;
    entry[encoding] = bytes;
    // An entry evicted meanwhile is no longer counted; its copy goes with it.
    if (entry.key !== undefined && this.entries.get(entry.key) === entry) {
      this.bytes += bytes.length;
      this.evict();
    }
  }

  private evict() {
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, CachedResponse];
      this.remove(oldestKey, oldest);
    }
  }

  private remove(key: string, entry: CachedResponse) {
    this.entries.delete(key);
    this.bytes -= sizeOf(entry);
  }
}
