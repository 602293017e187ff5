import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

/** The interface dictionary of each tenant, one document per language. */
export const INTERFACE_TRANSLATIONS = 'interface_translations';

export interface DictionaryDoc extends Doc {
  Language: string;
  Entries: Record<string, string>;
}

export const dictionaries = (db: TenantScope) => db.collection<DictionaryDoc>(INTERFACE_TRANSLATIONS);
