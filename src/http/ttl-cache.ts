/**
 * A small time-bounded cache for lookups made on every request (Api-Keys, tenant settings). An entry may
 * also carry the version of what it was read from (where its projection stood): it is then used only while
 * that version is the current one, so a change is seen at once rather than when the entry expires.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number; version: string | null }>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The value, loaded when absent, expired, or read at another version. `version`: read before loading. */
  async get(key: string, load: () => Promise<V>, version: string | null = null): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now && hit.version === version) return hit.value;
    const value = await load();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: now + this.ttlMs, version });
    return value;
  }

  /** The entry as loaded, with when it stops being used (epoch ms), or undefined when absent, expired or of another version. */
  peek(key: string, now = Date.now(), version: string | null = null): { value: V; expires: number } | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expires > now && hit.version === version ? hit : undefined;
  }

  clear() {
    this.entries.clear();
  }
}
