import type { TenantScope } from '../../src/ports/read-models.ts';
import { dictionaries } from '../../projections/translations/index.ts';

export interface Dictionary {
  /** The version of the dictionaries it was read from (for keys of files made with it). */
  version: number;
  entries: Record<string, string>;
  /** The text of a key, else `fallback`. */
  t(key: string, fallback: string): string;
}

/**
 * The tenant's interface dictionary in a language. A key missing in that language takes the default
 * language's text, then any language's, so every published language answers the same keys.
 */
export async function readDictionary(db: TenantScope, language: string, defaultLanguage: string, published: string[]): Promise<Dictionary> {
  const docs = (await dictionaries(db).find({})).filter((d) => published.includes(d.Language));
  const byLanguage = new Map(docs.map((d) => [d.Language, d.Entries]));
  const order = [
    ...docs
      .map((d) => d.Language)
      .filter((l) => l !== language && l !== defaultLanguage)
      .sort(),
    defaultLanguage,
    language,
  ];
  const entries: Record<string, string> = {};
  for (const l of order) Object.assign(entries, byLanguage.get(l) ?? {});
  const sorted = Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    version: docs.reduce((max, d) => Math.max(max, (d._pos as number) ?? 0), 0),
    entries: sorted,
    t: (key, fallback) => sorted[key] ?? fallback,
  };
}
