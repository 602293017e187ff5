import type { JobQueue } from './ports/jobs.ts';
import type { Projection } from './projector/projection.ts';
import { accessProjection } from '../projections/access/projection.ts';
import { catalogueProjection } from '../projections/catalogue/projection.ts';
import { membersProjection } from '../projections/members/projection.ts';
import { watchlistProjection } from '../projections/watchlist/projection.ts';
import { termsProjection } from '../projections/terms/projection.ts';
import { lotSearchProjection } from '../projections/lot-search/projection.ts';
import { bidsProjection } from '../projections/bids/projection.ts';
import { attributesProjection } from '../projections/attributes/projection.ts';
import { documentsProjection } from '../projections/documents/projection.ts';
import { translationsProjection } from '../projections/translations/projection.ts';
import { contactDeliveryReactor } from '../commands/contact/delivery.ts';

/** Every projection and reactor the service runs. */
export function allProjections(jobs: JobQueue): Projection[] {
  return [
    accessProjection,
    catalogueProjection,
    membersProjection,
    watchlistProjection,
    termsProjection,
    lotSearchProjection,
    bidsProjection,
    attributesProjection,
    documentsProjection,
    translationsProjection,
    contactDeliveryReactor(jobs),
  ];
}

/**
 * The projections that catalogue reads (everything an anonymous token reaches) answer from: a cached
 * catalogue answer is reused only while none of them has moved.
 */
export const CATALOGUE_PROJECTIONS = [
  catalogueProjection.name,
  lotSearchProjection.name,
  bidsProjection.name,
  attributesProjection.name,
  documentsProjection.name,
  translationsProjection.name,
];
