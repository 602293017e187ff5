import { defineSearchProjection } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { lotEvents, type LotEvent } from '../../commands/lots/events.ts';
import { LOT_SEARCH } from './collections.ts';

/** What the index holds of a lot, as its stream has it so far: its end time in ms, whether it closed early or was extended, its languages. */
interface IndexedLot {
  endTime: number;
  closed: boolean;
  extended?: boolean;
  languages: string[];
}

type IndexedLotEvent = Extract<LotEvent, { type: 'LotCatalogued' | 'LotClosed' | 'LotEndTimeExtended' }>;

/**
 * The lot after one more event of its stream, as the catalogue projection keeps it: a lot closed early
 * keeps its closing time when its catalogue record comes again (unless the record ends it earlier still), one
 * extended by bids (soft close) keeps its later end time, and a close before any record changes nothing.
 */
function evolve(lot: IndexedLot | null, event: IndexedLotEvent): IndexedLot | null {
  switch (event.type) {
    case 'LotCatalogued': {
      const endTime = Date.parse(event.data.endTime);
      return {
        endTime: lot?.closed ? Math.min(lot.endTime, endTime) : lot?.extended ? Math.max(lot.endTime, endTime) : endTime,
        closed: lot?.closed ?? false,
        extended: lot?.extended ?? false,
        languages: Object.keys(event.data.texts),
      };
    }
    case 'LotEndTimeExtended':
      return lot && { ...lot, extended: true, endTime: Date.parse(event.data.endTime) };
    case 'LotClosed':
      return lot && { ...lot, closed: true, endTime: Math.min(lot.endTime, Date.parse(event.data.closedAt)) };
  }
}

/**
 * The lot search index: one document per lot and language (collections.ts). The projection reads nothing
 * back from the index: a catalogue record that comes again (one that is not its stream's first event) reads
 * the lot's earlier events from its stream, to keep the closing time of a lot closed early and to drop the
 * documents of languages the record no longer has.
 */
export const lotSearchProjection = defineSearchProjection({
  name: 'lot-search',
  events: [catalogueEvents, lotEvents],
  handles: ['LotCatalogued', 'LotClosed', 'LotEndTimeExtended'],
  collection: {
    name: LOT_SEARCH,
    fields: [
      { name: 'Title', type: 'string', searchable: true },
      { name: 'Description', type: 'string', searchable: true },
      { name: 'AttributeText', type: 'string', searchable: true },
      { name: 'Language', type: 'string' },
      { name: 'AuctionId', type: 'int32', facet: true },
      { name: 'CategoryId', type: 'int32', facet: true },
      { name: 'LotNumber', type: 'int32' },
      { name: 'EndTime', type: 'int64' },
    ],
  },
  async apply(event, batch, earlier) {
    switch (event.type) {
      case 'LotCatalogued': {
        const d = event.data;
        const before = (await earlier()).reduce(evolve, null);
        const lot = evolve(before, event)!;
        // A delete reaches every language of the id: the languages kept are written again after it.
        if (before?.languages.some((language) => !lot.languages.includes(language))) batch.delete(d.tenant, String(d.lotId));
        for (const [language, text] of Object.entries(d.texts)) {
          batch.upsert(d.tenant, {
            id: String(d.lotId),
            Language: language,
            Title: text.title,
            Description: text.description,
            AttributeText: d.attributes.map((a) => a.values[language] ?? '').join(' '),
            AuctionId: d.auctionId,
            CategoryId: d.categoryId ?? 0,
            LotNumber: d.lotNumber,
            EndTime: lot.endTime,
          });
        }
        return;
      }
      case 'LotClosed':
        batch.update(event.data.tenant, { id: String(event.data.lotId), EndTime: Date.parse(event.data.closedAt) });
        return;
      case 'LotEndTimeExtended':
        batch.update(event.data.tenant, { id: String(event.data.lotId), EndTime: Date.parse(event.data.endTime) });
        return;
    }
  },
});
