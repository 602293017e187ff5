import { assembleFeatures, defineFeature, type Feature } from '../../src/feature.ts';
import { catalogueCommands } from '../../commands/catalogue/index.ts';
import { documentsCommands } from '../../commands/documents/index.ts';
import { translationsCommands } from '../../commands/translations/index.ts';
import { membersCommands } from '../../commands/members/index.ts';
import { profileCommands } from '../../commands/profile/index.ts';
import { phoneVerificationCommands } from '../../commands/phone-verification/index.ts';
import { registrationsCommands } from '../../commands/registrations/index.ts';
import { identityDocumentsCommands } from '../../commands/identity-documents/index.ts';
import { invoicesCommands } from '../../commands/invoices/index.ts';
import { notificationsCommands } from '../../commands/notifications/index.ts';
import { watchlistCommands } from '../../commands/watchlist/index.ts';
import { termsCommands } from '../../commands/terms/index.ts';
import { contactCommands } from '../../commands/contact/index.ts';
import { accessReadModels } from '../../projections/access/index.ts';
import { catalogueReadModels } from '../../projections/catalogue/index.ts';
import { lotSearchReadModels } from '../../projections/lot-search/index.ts';
import { bidsReadModels } from '../../projections/bids/index.ts';
import { attributesReadModels } from '../../projections/attributes/index.ts';
import { documentsReadModels } from '../../projections/documents/index.ts';
import { translationsReadModels } from '../../projections/translations/index.ts';
import { membersReadModels } from '../../projections/members/index.ts';
import { profilesReadModels } from '../../projections/profile/index.ts';
import { registrationsReadModels } from '../../projections/registrations/index.ts';
import { identityDocumentsReadModels } from '../../projections/identity-documents/index.ts';
import { invoicesReadModels } from '../../projections/invoices/index.ts';
import { notificationsReadModels } from '../../projections/notifications/index.ts';
import { watchlistReadModels } from '../../projections/watchlist/index.ts';
import { termsReadModels } from '../../projections/terms/index.ts';
import { credentialOperations } from '../../queries/credentials/operations.ts';
import { auctionOperations } from '../../queries/auctions/operations.ts';
import { auctionCatalogueOperations } from '../../queries/auction-catalogue/operations.ts';
import { categoryOperations } from '../../queries/categories/operations.ts';
import { lotSearchOperations } from '../../queries/lot-search/operations.ts';
import { lotOperations } from '../../queries/lots/operations.ts';
import { attributeOperations } from '../../queries/attributes/operations.ts';
import { lotLinkOperations } from '../../queries/lot-links/operations.ts';
import { bidOperations } from '../../queries/bids/operations.ts';
import { consignmentOperations } from '../../queries/consignments/operations.ts';
import { liveOperations } from '../../queries/live/operations.ts';
import { documentOperations } from '../../queries/documents/operations.ts';
import { translationOperations } from '../../queries/translations/operations.ts';
import { membersQueryOperations } from '../../queries/members/operations.ts';
import { sessionOperations } from '../../queries/sessions/operations.ts';
import { profileOperations } from '../../queries/profile/operations.ts';
import { registrationsQueryOperations } from '../../queries/registrations/operations.ts';
import { identityDocumentsQueryOperations } from '../../queries/identity-documents/operations.ts';
import { invoicesQueryOperations } from '../../queries/invoices/operations.ts';
import { watchlistQueryOperations } from '../../queries/watchlist/operations.ts';

/**
 * Every feature of the service, each put together from what its folders export (`commands/<f>/index.ts`,
 * `projections/<f>/index.ts`, and the operations of `queries/<f>`). The order is that of docs/events.md
 * (events) and of routing (operations): the lot search's `/v1/lots/search` comes before `/v1/lots/{id}`.
 */
export const features: Feature[] = [
  defineFeature('access', { operations: credentialOperations }, accessReadModels),
  defineFeature(
    'catalogue',
    catalogueCommands,
    catalogueReadModels,
    lotSearchReadModels,
    bidsReadModels,
    attributesReadModels,
    {
      operations: [
        ...auctionOperations,
        ...auctionCatalogueOperations,
        ...categoryOperations,
        ...lotSearchOperations,
        ...lotOperations,
        ...attributeOperations,
        ...lotLinkOperations,
        ...bidOperations,
        ...consignmentOperations,
        ...liveOperations,
      ],
    },
  ),
  defineFeature('documents', documentsCommands, documentsReadModels, { operations: documentOperations }),
  defineFeature('translations', translationsCommands, translationsReadModels, { operations: translationOperations }),
  defineFeature('members', membersCommands, membersReadModels, { operations: [...membersQueryOperations, ...sessionOperations] }),
  defineFeature('profile', { operations: profileOperations }, profileCommands, profilesReadModels),
  defineFeature('phone-verification', phoneVerificationCommands),
  defineFeature('registrations', registrationsCommands, registrationsReadModels, { operations: registrationsQueryOperations }),
  defineFeature('identity-documents', identityDocumentsCommands, identityDocumentsReadModels, { operations: identityDocumentsQueryOperations }),
  defineFeature('invoices', invoicesCommands, invoicesReadModels, { operations: invoicesQueryOperations }),
  defineFeature('notifications', notificationsCommands, notificationsReadModels),
  defineFeature('watchlist', { operations: watchlistQueryOperations }, watchlistCommands, watchlistReadModels),
  defineFeature('terms', termsCommands, termsReadModels),
  defineFeature('contact', contactCommands),
];

/** What the features register, checked once (no event type, projection, job or intake kind twice). */
export const service = assembleFeatures(features);
