import { defineSearchProjection } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';

/**
 * The lot search index: one document per lot and language, with the lot id as its id. The embedded index
 * is configured to partition it by Language (LOT_SEARCH_PARTITION), so the same id is one document per
 * language there, and a search reads one language's partition. Closing a lot updates its EndTime in every
 * language: an update without the Language field reaches every partition that holds the id.
 */
export const LOT_SEARCH = 'lots';

/** The embedded index's `partitions` option for this collection (set by the composition root). */
export const LOT_SEARCH_PARTITION: Record<string, string> = { [LOT_SEARCH]: 'Language' };

export const lotSearchProjection = defineSearchProjection({
  name: 'lot-search',
  events: [catalogueEvents],
  handles: ['LotCatalogued', 'LotClosed'],
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
  apply(event, batch) {
    switch (event.type) {
      case 'LotCatalogued': {
        const d = event.data;
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
            EndTime: Date.parse(d.endTime),
          });
        }
        return;
      }
      case 'LotClosed':
        batch.update(event.data.tenant, { id: String(event.data.lotId), EndTime: Date.parse(event.data.closedAt) });
        return;
    }
  },
});
