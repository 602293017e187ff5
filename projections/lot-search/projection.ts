import type { SearchProjection } from '../../src/projector/projection.ts';
import { asAppEvent } from '../../src/events/registry.ts';

/**
 * The lot search index: one document per lot and language (the index is partitioned by Language, and by
 * tenant in the adapter). Closing a lot updates its EndTime in every language: an update without the
 * partition field reaches every partition that holds the id.
 */
export const LOT_SEARCH = 'lots';

export const lotSearchProjection: SearchProjection = {
  kind: 'search',
  name: 'lot-search',
  collection: {
    name: LOT_SEARCH,
    partitionField: 'Language',
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
  handles: ['LotCatalogued', 'LotClosed'],
  apply(recorded, batch) {
    const event = asAppEvent(recorded);
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
};
