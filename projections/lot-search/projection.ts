import { defineSearchProjection } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { LOT_SEARCH } from './collections.ts';

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
