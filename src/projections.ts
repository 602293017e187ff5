import type { Projection, ReactorDeps } from './projector/projection.ts';
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
import { membersReactors } from '../commands/members/reactors.ts';
import { profileProjections } from '../projections/profiles/projection.ts';
import { registrationsProjections } from '../projections/registrations/projection.ts';
import { identityDocumentsProjections } from '../projections/identity-documents/projection.ts';
import { invoicesProjections } from '../projections/invoices/projection.ts';
import { notificationsProjections } from '../projections/notifications/projection.ts';

/** Every projection and reactor the service runs. */
export function allProjections(deps: ReactorDeps): Projection[] {
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
    contactDeliveryReactor(deps.jobs),
    ...membersReactors(deps),
    ...profileProjections(deps),
    ...registrationsProjections(deps),
    ...identityDocumentsProjections(deps),
    ...invoicesProjections(deps),
    ...notificationsProjections(deps),
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
