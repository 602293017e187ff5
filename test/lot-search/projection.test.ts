import { lotSearchReadModels } from '../../projections/lot-search/index.ts';
import { givenEvents } from '../support/projection-spec.ts';
import { lotCatalogued, lotClosed } from '../support/catalogue-events.ts';

/** The embedded index keeps the lot search documents one per lot and language (LOT_SEARCH_PARTITION). */
const BY_LANGUAGE = { partitionField: 'Language' };

const END = Date.parse('2026-11-30T18:00:00Z');
const CLOSED = Date.parse('2026-11-22T12:05:00Z');
const texts = {
  en: { title: 'Oak chair', description: 'A chair of solid oak' },
  nl: { title: 'Eiken stoel', description: 'Een stoel van massief eiken' },
};
const material = { name: 'Material', labels: { en: 'Material' }, values: { en: 'Oak', nl: 'Eiken' } };
const doc = (id: number, language: 'en' | 'nl', fields: Record<string, unknown> = {}) => ({
  id: String(id),
  Language: language,
  Title: texts[language].title,
  Description: texts[language].description,
  AttributeText: '',
  AuctionId: 1,
  CategoryId: 3,
  LotNumber: id,
  EndTime: END,
  ...fields,
});
const searching = (q: string, language: string, filter: Record<string, unknown> = {}) => ({
  q,
  queryBy: ['Title', 'Description', 'AttributeText'],
  filter: { Language: language, ...filter },
});

describe('lot search projection', () => {
  it("indexes a lot once per language of its texts, with that language's attribute values and its end time in milliseconds", async () => {
    await givenEvents(lotCatalogued(10, { texts, attributes: [material] }), lotCatalogued(11, { categoryId: null }))
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [
        doc(10, 'en', { AttributeText: 'Oak' }),
        doc(10, 'nl', { AttributeText: 'Eiken' }),
        // A lot without a category is indexed under category 0.
        doc(11, 'en', { CategoryId: 0 }),
      ])
      .thenSearchFinds('demo', searching('stoel', 'nl'), ['10'])
      .thenSearchFinds('demo', searching('chair', 'en', { CategoryId: 0 }), ['11']);
  });

  it('replaces the documents of a lot whose catalogue record comes again', async () => {
    await givenEvents(
      lotCatalogued(10),
      lotCatalogued(10, { texts: { en: { title: 'Walnut table', description: 'A table' } }, auctionId: 2 }),
    )
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [doc(10, 'en', { Title: 'Walnut table', Description: 'A table', AuctionId: 2 })])
      .thenSearchFinds('demo', searching('walnut', 'en'), ['10'])
      .thenSearchFinds('demo', searching('chair', 'en'), []);
  });

  it('moves the end time of a lot closed early to its closing time in every language, so it no longer counts among lots still open', async () => {
    await givenEvents(lotCatalogued(10, { texts }), lotCatalogued(11), lotClosed(10, '2026-11-22T12:05:00Z'))
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [doc(10, 'en', { EndTime: CLOSED }), doc(10, 'nl', { EndTime: CLOSED }), doc(11, 'en')])
      .thenSearchFinds('demo', searching('chair', 'en', { EndTime: { gt: CLOSED } }), ['11'])
      .thenSearchFinds('demo', searching('stoel', 'nl', { EndTime: { gt: CLOSED } }), []);
  });

  it('indexes nothing for the close of a lot it has not indexed', async () => {
    await givenEvents(lotClosed(10, '2026-11-22T12:05:00Z'))
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchFinds('demo', searching('chair', 'en'), []);
  });

  it("keeps each tenant's index apart: closing lot 10 of one tenant leaves lot 10 of another open", async () => {
    await givenEvents(
      lotCatalogued(10),
      lotCatalogued(10, { tenant: 'demo2', texts: { en: { title: 'Oak bench', description: 'A bench' } } }),
      lotClosed(10, '2026-11-22T12:05:00Z', 'demo2'),
    )
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [doc(10, 'en')])
      .thenSearchDocuments('demo2', [doc(10, 'en', { Title: 'Oak bench', Description: 'A bench', EndTime: CLOSED })])
      .thenSearchFinds('demo', searching('oak', 'en'), ['10'])
      .thenSearchFinds('demo2', searching('chair', 'en'), []);
  });

  // Pending: what the projection does not do yet. It keeps no state, so (1) a catalogue record that comes again
  // (a nightly intake sends every lot) puts back the lot's original end time, and a lot closed early is found again
  // among the open lots (ShowClosedLots=false filters on EndTime), while the catalogue and bids projections keep the
  // closing time; (2) a language the record no longer has keeps its old document, found in that language's searches.
  it.skip('keeps the closing time of a lot closed early when its catalogue record comes again, as the catalogue does', async () => {
    await givenEvents(lotCatalogued(10), lotClosed(10, '2026-11-22T12:05:00Z'), lotCatalogued(10))
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [doc(10, 'en', { EndTime: CLOSED })])
      .thenSearchFinds('demo', searching('chair', 'en', { EndTime: { gt: CLOSED } }), []);
  });

  it.skip('drops the document of a language the catalogue record of the lot no longer has', async () => {
    await givenEvents(lotCatalogued(10, { texts }), lotCatalogued(10))
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [doc(10, 'en')])
      .thenSearchFinds('demo', searching('stoel', 'nl'), []);
  });
});
