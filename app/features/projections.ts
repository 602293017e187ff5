import type { Projection, ReactorDeps } from '../../src/projector/projection.ts';
import { accessProjection } from '../../projections/access/index.ts';
import { catalogueProjection } from '../../projections/catalogue/index.ts';
import { lotSearchProjection } from '../../projections/lot-search/index.ts';
import { bidsProjection } from '../../projections/bids/index.ts';
import { attributesProjection } from '../../projections/attributes/index.ts';
import { documentsProjection } from '../../projections/documents/index.ts';
import { translationsProjection } from '../../projections/translations/index.ts';
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
