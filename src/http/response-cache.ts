import { createHash } from 'node:crypto';

export interface CachedResponse {
  /** The UTF-8 bytes, encoded once. */
  body: Buffer;
  etag: string;
  version: string;
  expires: number;
}

export function weakEtag(body: Buffer): string {
  return `W/"${body.length.toString(16)}-${createHash('sha1').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * Serialised answers of catalogue reads, keyed by tenant, language and URL. An entry is used only while
 * the projections it was read from stand at the same positions (`version`) and for at most `ttlMs`, which
 * bounds what the clock changes (a lot closing, an auction starting). Bounded in entries and bytes.
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private bytes = 0;

  constructor(
    private readonly ttlMs = 1000,
    private readonly maxEntries = 5000,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  get(key: string, version: string, now: number): CachedResponse | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.version !== version || entry.expires <= now) {
      this.remove(key, entry);
      return null;
    }
    return entry;
  }

  set(key: string, entry: CachedResponse) {
    if (entry.body.length > 1024 * 1024) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, CachedResponse];
      this.remove(oldestKey, oldest);
    }
  }

  private remove(key: string, entry: CachedResponse) {
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}
