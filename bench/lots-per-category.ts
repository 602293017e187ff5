// The bench's second replay (bench/analysts.ts): a projection of three event types that are a tenth of the
// 1M-event log (AuctionCatalogued, CategoryCatalogued, LotCatalogued; the bids are skipped by the log's type
// filter): per tenant, auction and category, how many lots and their low estimates, with the auction's start day
// and the category's name.
import { defineDocumentProjection } from '../src/projector/projection.ts';
import type { Doc } from '../src/ports/read-models.ts';
import { catalogueEvents } from '../commands/catalogue/events.ts';
import { catalogueLotEvents } from '../commands/lots/events.ts';

const LOTS_PER_CATEGORY = 'analysis_bench_lots_per_category';
const NAMES = 'analysis_bench_names';

interface LotsDoc extends Doc {
  AuctionId: number;
  AuctionStarts: string;
  CategoryId: number;
  Category: string;
  Lots: number;
  EstimateLow: number;
}

export const lotsPerCategory = defineDocumentProjection({
  name: 'analysis-bench-lots-per-category',
  events: [catalogueEvents, catalogueLotEvents],
  handles: ['AuctionCatalogued', 'CategoryCatalogued', 'LotCatalogued'],
  collections: [{ name: LOTS_PER_CATEGORY }, { name: NAMES }],
  async apply(event, uow) {
    switch (event.type) {
      case 'AuctionCatalogued': {
        const d = event.data;
        await uow.update<Doc & { Name: string }>(NAMES, d.tenant, `auction-${d.auctionId}`, () => ({
          _id: '',
          Name: d.startTime.slice(0, 10),
        }));
        return;
      }
      case 'CategoryCatalogued': {
        const d = event.data;
        await uow.update<Doc & { Name: string }>(NAMES, d.tenant, `category-${d.categoryId}`, () => ({
          _id: '',
          Name: d.names.en ?? Object.values(d.names)[0] ?? '',
        }));
        return;
      }
      case 'LotCatalogued': {
        const d = event.data;
        const categoryId = d.categoryId ?? 0;
        const auction = await uow.get<Doc & { Name: string }>(NAMES, d.tenant, `auction-${d.auctionId}`);
        const category = await uow.get<Doc & { Name: string }>(NAMES, d.tenant, `category-${categoryId}`);
        await uow.update<LotsDoc>(LOTS_PER_CATEGORY, d.tenant, `${d.auctionId}:${categoryId}`, (doc) => {
          const next = doc ?? {
            _id: '',
            AuctionId: d.auctionId,
            AuctionStarts: '',
            CategoryId: categoryId,
            Category: '',
            Lots: 0,
            EstimateLow: 0,
          };
          next.AuctionStarts = auction?.Name ?? '';
          next.Category = category?.Name ?? '';
          next.Lots += 1;
          next.EstimateLow += d.estimateLow ?? 0;
          return next;
        });
        return;
      }
    }
  },
});
