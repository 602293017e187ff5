import type { Projection, ReactorDeps } from '../../src/projector/projection.ts';
import { accessProjection } from '../../projections/access/projection.ts';
import { catalogueProjection } from '../../projections/catalogue/projection.ts';
import { lotSearchProjection } from '../../projections/lot-search/projection.ts';
import { bidsProjection } from '../../projections/bids/projection.ts';
import { attributesProjection } from '../../projections/attributes/projection.ts';
import { documentsProjection } from '../../projections/documents/projection.ts';
import { translationsProjection } from '../../projections/translations/projection.ts';
import { service } from './index.ts';

/** Every projection and reactor the service runs (each feature's, app/features/index.ts). */
export function allProjections(deps: ReactorDeps): Projection[] {
  return service.projections(deps);
}

/**
 * The projections that catalogue reads (everything an anonymous token reaches) answer from: a cached
 * catalogue answer is reused only while none of them has moved. `access` holds the tenant's settings (page
 * size, languages, default language), which shape the answers too.
 */
export const CATALOGUE_PROJECTIONS = [
  accessProjection.name,
  catalogueProjection.name,
  lotSearchProjection.name,
  bidsProjection.name,
  attributesProjection.name,
  documentsProjection.name,
  translationsProjection.name,
];
