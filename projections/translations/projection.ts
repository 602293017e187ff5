import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { translationEvents } from '../../commands/translations/events.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

/** The interface dictionary of each tenant, one document per language. */
export const INTERFACE_TRANSLATIONS = 'interface_translations';

export interface DictionaryDoc extends Doc {
  Language: string;
  Entries: Record<string, string>;
}

export const dictionaries = (db: TenantScope) => db.collection<DictionaryDoc>(INTERFACE_TRANSLATIONS);

export const translationsProjection = defineDocumentProjection({
  name: 'translations',
  events: [translationEvents],
  collections: [{ name: INTERFACE_TRANSLATIONS }],
  async apply(event, uow) {
    const d = event.data;
    await uow.update<DictionaryDoc>(INTERFACE_TRANSLATIONS, d.tenant, d.language, () => ({ Language: d.language, Entries: d.entries }));
  },
});
