import type { DocumentProjection } from '../../src/projector/projection.ts';
import { asAppEvent } from '../../src/events/registry.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

/** The interface dictionary of each tenant, one document per language. */
export const INTERFACE_TRANSLATIONS = 'interface_translations';

export interface DictionaryDoc extends Doc {
  Language: string;
  Entries: Record<string, string>;
}

export const dictionaries = (db: TenantScope) => db.collection<DictionaryDoc>(INTERFACE_TRANSLATIONS);

export const translationsProjection: DocumentProjection = {
  kind: 'documents',
  name: 'translations',
  collections: [{ name: INTERFACE_TRANSLATIONS }],
  handles: ['InterfaceTranslationsPublished'],
  async apply(recorded, uow) {
    const event = asAppEvent(recorded);
    if (event.type !== 'InterfaceTranslationsPublished') return;
    const d = event.data;
    await uow.update<DictionaryDoc>(INTERFACE_TRANSLATIONS, d.tenant, d.language, () => ({ Language: d.language, Entries: d.entries }));
  },
};
