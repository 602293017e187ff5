import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { translationEvents } from '../../commands/translations/events.ts';
import { INTERFACE_TRANSLATIONS, type DictionaryDoc } from './collections.ts';

export const translationsProjection = defineDocumentProjection({
  name: 'translations',
  events: [translationEvents],
  collections: [{ name: INTERFACE_TRANSLATIONS }],
  async apply(event, uow) {
    const d = event.data;
    await uow.update<DictionaryDoc>(INTERFACE_TRANSLATIONS, d.tenant, d.language, () => ({ Language: d.language, Entries: d.entries }));
  },
});
