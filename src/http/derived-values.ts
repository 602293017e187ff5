/**
 * Values handlers work out from the catalogue read models and reuse across requests (TenantContext.derived):
 * kept per tenant and key with the version of the read models they came from, and used only while that is
 * the current version (and the caller's own check, e.g. a time not yet reached, holds). Bounded.
 */
export class DerivedValues {
  private readonly values = new Map<string, { version: string; value: unknown }>();

  constructor(
    /** The current version of a tenant's read models (null: unknown, nothing is kept). */
    private readonly version: (tenant: string) => string | null,
    private readonly maxEntries = 2000,
  ) {}

  async get<T>(tenant: string, key: string, compute: () => Promise<T>, stillTrue?: (value: T) => boolean): Promise<T> {
    const version = this.version(tenant);
    if (version === null) return compute();
    const k = `${tenant}\n${key}`;
    const kept = this.values.get(k);
    if (kept && kept.version === version && (!stillTrue || stillTrue(kept.value as T))) return kept.value as T;
    // Read before working out: a change meanwhile leaves this value with the older version, not the newer.
    const value = await compute();
    this.values.delete(k);
    if (this.values.size >= this.maxEntries) this.values.delete(this.values.keys().next().value as string);
    this.values.set(k, { version, value });
    return value;
  }
}
