import type { Tenant } from './access-directory.ts';

/**
 * Content negotiation: an explicit language parameter wins, then Accept-Language (with q-values and
 * region fallback: `sv-SE` → `sv`), then the tenant's default language. Only published languages are
 * ever answered.
 */
export function negotiateLanguage(
  tenant: Pick<Tenant, 'Languages' | 'DefaultLanguage'>,
  acceptLanguage: string | undefined,
  override?: string,
): string {
  const published = tenant.Languages;
  const match = (tag: string): string | undefined => {
    const lower = tag.trim().toLowerCase();
    if (!lower || lower === '*') return undefined;
    return published.find((l) => l.toLowerCase() === lower) ?? published.find((l) => l.toLowerCase() === lower.split('-')[0]);
  };
  if (override) {
    const found = match(override);
    if (found) return found;
  }
  if (acceptLanguage) {
    const ranges = acceptLanguage
      .split(',')
      .slice(0, 20)
      .map((part, index) => {
        const [tag, ...params] = part.split(';');
        const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
        const weight = q ? Number(q.slice(2)) : 1;
        return { tag, weight: Number.isFinite(weight) ? weight : 0, index };
      })
      .filter((r) => r.weight > 0)
      .sort((a, b) => b.weight - a.weight || a.index - b.index);
    for (const range of ranges) {
      const found = match(range.tag);
      if (found) return found;
    }
  }
  return tenant.DefaultLanguage;
}

/** A text of the wanted language, else of the tenant's default, else any. */
export function pick<T>(texts: Record<string, T>, language: string, fallback: string): T | undefined {
  return texts[language] ?? texts[fallback] ?? Object.values(texts)[0];
}

/** Negotiated languages per tenant record (a record reloaded after a settings change starts afresh). */
const negotiated = new WeakMap<object, Map<string, string>>();

/** negotiateLanguage, remembered per tenant record, override and Accept-Language value. */
export function negotiatedLanguage(
  tenant: Pick<Tenant, 'Languages' | 'DefaultLanguage'>,
  acceptLanguage: string | undefined,
  override?: string,
): string {
  let byRequest = negotiated.get(tenant);
  if (!byRequest) negotiated.set(tenant, (byRequest = new Map()));
  // The header value itself when there is no override (no header value holds a line break).
  const key = override === undefined ? (acceptLanguage ?? '') : `${override}\n${acceptLanguage ?? ''}`;
  let language = byRequest.get(key);
  if (language === undefined) {
    language = negotiateLanguage(tenant, acceptLanguage, override);
    if (byRequest.size >= 1000) byRequest.clear();
    byRequest.set(key, language);
  }
  return language;
}
