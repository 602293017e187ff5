import type { FeaturePart } from '../../src/feature.ts';
import { auctionCatalogueQueryOperations } from './operations.ts';

/** The read side of an auction's printed catalogue and lot export: the HTTP operations it registers (app/features/index.ts). */
export const auctionCatalogueQueries: FeaturePart = { operations: auctionCatalogueQueryOperations };
