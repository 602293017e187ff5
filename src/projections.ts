import type { JobQueue } from './ports/jobs.ts';
import type { Projection } from './projector/projection.ts';
import { accessProjection } from '../projections/access/projection.ts';
import { catalogueProjection } from '../projections/catalogue/projection.ts';
import { membersProjection } from '../projections/members/projection.ts';
import { watchlistProjection } from '../projections/watchlist/projection.ts';
import { termsProjection } from '../projections/terms/projection.ts';
import { lotSearchProjection } from '../projections/lot-search/projection.ts';
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
    contactDeliveryReactor(jobs),
  ];
}
