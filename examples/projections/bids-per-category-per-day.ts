// An analyst's projection (docs/analysts.md): per tenant, category, day (UTC) and currency, how many bids were
// placed on the category's lots, their total and the highest.
//   npm run project -- examples/projections/bids-per-category-per-day.ts
// Its documents: the collection `analysis_bids_per_category_day`, one per tenant, category, day and currency,
// with the id `<categoryId>:<YYYY-MM-DD>:<currency>` (category 0: lots without a category). A bid counts in the
// category its lot had when the bid was placed. What it needs to know of the catalogue (each lot's category and
// currency, each category's name) it keeps in a second collection, `analysis_bids_catalogue`.
import { defineDocumentProjection } from '../../src/projector/projection.ts';
import type { Doc } from '../../src/ports/read-models.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { catalogueLotEvents } from '../../commands/lots/events.ts';

export const BIDS_PER_CATEGORY_DAY = 'analysis_bids_per_category_day';
export const BIDS_CATALOGUE = 'analysis_bids_catalogue';

export interface BidsPerCategoryDayDoc extends Doc {
  CategoryId: number;
  Category: string;
  Day: string;
  Currency: string;
  Bids: number;
  /** Minor units of Currency. */
  Amount: number;
  HighestBid: number;
}

/** `lot-<lotId>`: the lot's category and currency; `category-<categoryId>`: the category's name. */
interface CatalogueDoc extends Doc {
  CategoryId?: number;
  Currency?: string;
  Name?: string;
}

/** A category's name: in English if it has one, else in its first language. */
const nameOf = (names: Record<string, string>) => names.en ?? Object.values(names)[0] ?? '';

export const bidsPerCategoryPerDay = defineDocumentProjection({
  name: 'analysis-bids-per-category-per-day',
  events: [catalogueEvents, catalogueLotEvents],
  handles: ['CategoryCatalogued', 'LotCatalogued', 'BidPlaced'],
  collections: [{ name: BIDS_PER_CATEGORY_DAY, indexes: [{ fields: ['Day', 'CategoryId'] }] }, { name: BIDS_CATALOGUE }],
  async apply(event, uow) {
    switch (event.type) {
      case 'CategoryCatalogued': {
        const d = event.data;
        await uow.update<CatalogueDoc>(BIDS_CATALOGUE, d.tenant, `category-${d.categoryId}`, () => ({ _id: '', Name: nameOf(d.names) }));
        return;
      }
      case 'LotCatalogued': {
        const d = event.data;
        await uow.update<CatalogueDoc>(BIDS_CATALOGUE, d.tenant, `lot-${d.lotId}`, () => ({
          _id: '',
          CategoryId: d.categoryId ?? 0,
          Currency: d.currency,
        }));
        return;
      }
      case 'BidPlaced': {
        const d = event.data;
        const lot = await uow.get<CatalogueDoc>(BIDS_CATALOGUE, d.tenant, `lot-${d.lotId}`);
        const categoryId = lot?.CategoryId ?? 0;
        const currency = lot?.Currency ?? '';
        const category = categoryId === 0 ? null : await uow.get<CatalogueDoc>(BIDS_CATALOGUE, d.tenant, `category-${categoryId}`);
        const day = d.placedAt.slice(0, 10);
        await uow.update<BidsPerCategoryDayDoc>(BIDS_PER_CATEGORY_DAY, d.tenant, `${categoryId}:${day}:${currency}`, (doc) => {
          const next = doc ?? {
            _id: '',
            CategoryId: categoryId,
            Category: '',
            Day: day,
            Currency: currency,
            Bids: 0,
            Amount: 0,
            HighestBid: 0,
          };
          next.Category = category?.Name ?? (categoryId === 0 ? '(no category)' : `category ${categoryId}`);
          next.Bids += 1;
          next.Amount += d.amount;
          next.HighestBid = Math.max(next.HighestBid, d.amount);
          return next;
        });
        return;
      }
    }
  },
});
