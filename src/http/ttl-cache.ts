/** A small time-bounded cache for lookups made on every request (Api-Keys, tenant settings). */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  constructor(private readonly ttlMs: number, private readonly maxEntries = 10_000) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    const value = await load();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: now + this.ttlMs });
    return value;
  }

  /** The entry as loaded, with when it stops being used (epoch ms), or undefined when absent or expired. */
  peek(key: string, now = Date.now()): { value: V; expires: number } | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expires > now ? hit : undefined;
  }

  clear() {
    this.entries.clear();
  }
}
