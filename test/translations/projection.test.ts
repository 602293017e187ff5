import { translationsReadModels } from '../../projections/translations/index.ts';
import type { TranslationEvent } from '../../commands/translations/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const published = (language: string, entries: Record<string, string>, tenant = 'demo'): TranslationEvent => ({
  type: 'InterfaceTranslationsPublished',
  data: { tenant, language, entries },
});

describe('translations projection', () => {
  it('keeps one dictionary per language', async () => {
    await givenEvents(published('en', { 'button.placeBid': 'Place bid' }), published('nl', { 'button.placeBid': 'Bied' }))
      .whenProjected(translationsReadModels)
      .thenDocuments('interface_translations', 'demo', [
        { _id: 'en', Language: 'en', Entries: { 'button.placeBid': 'Place bid' } },
        { _id: 'nl', Language: 'nl', Entries: { 'button.placeBid': 'Bied' } },
      ]);
  });

  it("replaces a language's dictionary as a whole: keys left out of the new one are gone", async () => {
    await givenEvents(
      published('en', { 'button.placeBid': 'Place bid', 'label.lot': 'Lot' }),
      published('en', { 'button.placeBid': 'Bid now', 'label.estimate': 'Estimate' }),
    )
      .whenProjected(translationsReadModels)
      .thenDocuments('interface_translations', 'demo', [
        { _id: 'en', Language: 'en', Entries: { 'button.placeBid': 'Bid now', 'label.estimate': 'Estimate' } },
      ]);
  });

  it("keeps each tenant's dictionaries apart", async () => {
    await givenEvents(published('en', { 'label.lot': 'Lot' }), published('en', { 'label.lot': 'Item' }, 'demo2'))
      .whenProjected(translationsReadModels)
      .thenDocuments('interface_translations', 'demo', [{ _id: 'en', Language: 'en', Entries: { 'label.lot': 'Lot' } }])
      .thenDocuments('interface_translations', 'demo2', [{ _id: 'en', Language: 'en', Entries: { 'label.lot': 'Item' } }]);
  });
});
