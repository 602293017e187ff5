import { lotSearchReadModels } from '../../projections/lot-search/index.ts';
import { givenEvents } from '../support/projection-spec.ts';
import { bidPlaced, lotCatalogued, lotClosed } from '../support/catalogue-events.ts';

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

  // The projection reads nothing back from its index: a catalogue record that comes again (a nightly intake sends
  // every changed lot) reads the lot's earlier events from its stream (SearchBatch.earlier), so that a lot closed early
  // keeps its closing time (ShowClosedLots=false filters on EndTime) as the catalogue and bids projections keep it, and
  // a language the record no longer has loses its document.
  it('keeps the closing time of a lot closed early when its catalogue record comes again, as the catalogue does', async () => {
    await givenEvents(lotCatalogued(10), lotClosed(10, '2026-11-22T12:05:00Z'), lotCatalogued(10))
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [doc(10, 'en', { EndTime: CLOSED })])
      .thenSearchFinds('demo', searching('chair', 'en', { EndTime: { gt: CLOSED } }), []);
  });

  it('keeps the closing time through bids and later records of the lot, in every language, and an earlier end time of a record after it', async () => {
    const EARLIER = Date.parse('2026-11-22T09:00:00Z');
    await givenEvents(
      lotCatalogued(10),
      bidPlaced(10, 1500, '2026-11-22T11:00:00Z'),
      lotClosed(10, '2026-11-22T12:05:00Z'),
      lotCatalogued(10, { texts, endTime: '2026-12-07T18:00:00Z' }),
      lotCatalogued(10, { texts, auctionId: 2 }),
      lotCatalogued(11),
      lotCatalogued(11, { auctionId: 2, endTime: '2026-12-07T18:00:00Z' }),
      lotCatalogued(12),
      lotClosed(12, '2026-11-22T12:05:00Z'),
      lotCatalogued(12, { endTime: '2026-11-22T09:00:00Z' }),
      lotCatalogued(12),
    )
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [
        doc(10, 'en', { EndTime: CLOSED, AuctionId: 2 }),
        doc(10, 'nl', { EndTime: CLOSED, AuctionId: 2 }),
        // A lot never closed takes the end time of its latest record.
        doc(11, 'en', { AuctionId: 2, EndTime: Date.parse('2026-12-07T18:00:00Z') }),
        // A record ending a closed lot before its closing time moves it earlier; it never moves later again.
        doc(12, 'en', { EndTime: EARLIER }),
      ])
      .thenSearchFinds('demo', searching('stoel', 'nl', { EndTime: { gt: CLOSED } }), [])
      .thenSearchFinds('demo', searching('chair', 'en', { EndTime: { gt: CLOSED } }), ['11']);
  });

  it('drops the document of a language the catalogue record of the lot no longer has', async () => {
    await givenEvents(lotCatalogued(10, { texts }), lotCatalogued(10))
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [doc(10, 'en')])
      .thenSearchFinds('demo', searching('stoel', 'nl'), []);
  });

  it('moves a lot to the languages of its latest record, keeping its closing time, and leaves other lots and tenants alone', async () => {
    const nl = { nl: texts.nl };
    await givenEvents(
      lotCatalogued(10, { texts }),
      lotCatalogued(11, { texts }),
      lotCatalogued(10, { texts, tenant: 'demo2' }),
      lotClosed(10, '2026-11-22T12:05:00Z'),
      lotCatalogued(10, { texts: nl }),
      lotCatalogued(10, { texts: { en: texts.en } }),
      lotCatalogued(10, { texts: nl }),
    )
      .whenIndexed(lotSearchReadModels, BY_LANGUAGE)
      .thenSearchDocuments('demo', [doc(10, 'nl', { EndTime: CLOSED }), doc(11, 'en'), doc(11, 'nl')])
      .thenSearchDocuments('demo2', [doc(10, 'en'), doc(10, 'nl')])
      .thenSearchFinds('demo', searching('chair', 'en'), ['11'])
      .thenSearchFinds('demo', searching('stoel', 'nl'), ['10', '11'])
      .thenSearchFinds('demo2', searching('chair', 'en'), ['10']);
  });
});
