import { assembleFeatures, defineFeature, type Feature } from '../../src/feature.ts';
import { accessCommands } from '../../commands/access/index.ts';
import { catalogueCommands } from '../../commands/catalogue/index.ts';
import { lotsCommands } from '../../commands/lots/index.ts';
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
import { profileReadModels } from '../../projections/profile/index.ts';
import { registrationsReadModels } from '../../projections/registrations/index.ts';
import { identityDocumentsReadModels } from '../../projections/identity-documents/index.ts';
import { invoicesReadModels } from '../../projections/invoices/index.ts';
import { notificationsReadModels } from '../../projections/notifications/index.ts';
import { watchlistReadModels } from '../../projections/watchlist/index.ts';
import { termsReadModels } from '../../projections/terms/index.ts';
import { credentialsQueries } from '../../queries/credentials/index.ts';
import { auctionsQueries } from '../../queries/auctions/index.ts';
import { auctionCatalogueQueries } from '../../queries/auction-catalogue/index.ts';
import { categoriesQueries } from '../../queries/categories/index.ts';
import { lotSearchQueries } from '../../queries/lot-search/index.ts';
import { lotsQueries } from '../../queries/lots/index.ts';
import { attributesQueries } from '../../queries/attributes/index.ts';
import { lotLinksQueries } from '../../queries/lot-links/index.ts';
import { bidsQueries } from '../../queries/bids/index.ts';
import { consignmentsQueries } from '../../queries/consignments/index.ts';
import { liveQueries } from '../../queries/live/index.ts';
import { documentsQueries } from '../../queries/documents/index.ts';
import { translationsQueries } from '../../queries/translations/index.ts';
import { membersQueries } from '../../queries/members/index.ts';
import { sessionsQueries } from '../../queries/sessions/index.ts';
import { profileQueries } from '../../queries/profile/index.ts';
import { registrationsQueries } from '../../queries/registrations/index.ts';
import { identityDocumentsQueries } from '../../queries/identity-documents/index.ts';
import { invoicesQueries } from '../../queries/invoices/index.ts';
import { watchlistQueries } from '../../queries/watchlist/index.ts';
import { backofficeFeedQueries } from '../../queries/backoffice-feed/index.ts';
import { webhooksCommands } from '../../commands/webhooks/index.ts';
import { backofficeIntakeCommands } from '../../commands/backoffice-intake/index.ts';
import { idempotencyPart } from '../../src/idempotency/index.ts';
import { biddingCommands } from '../../commands/bidding/index.ts';
import { biddingReadModels } from '../../projections/bidding/index.ts';
import { biddingQueries } from '../../queries/bidding/index.ts';
import { auctionStreamQueries } from '../../queries/auction-stream/index.ts';
import { streamTicketsQueries } from '../../queries/stream-tickets/index.ts';
import { memberStreamQueries } from '../../queries/member-stream/index.ts';
import { webhooksReadModels } from '../../projections/webhooks/index.ts';
import { webhooksQueries } from '../../queries/webhooks/index.ts';
import { costsCommands } from '../../commands/costs/index.ts';
import { costsReadModels } from '../../projections/costs/index.ts';
import { costsQueries } from '../../queries/costs/index.ts';
import { pushQueries } from '../../queries/push/index.ts';
import { pushCommands } from '../../commands/push/index.ts';
import { pushReadModels } from '../../projections/push/index.ts';

/**
 * Every feature of the service, each put together from what its folders export (`commands/<f>/index.ts`:
 * `<f>Commands`, `projections/<f>/index.ts`: `<f>ReadModels`, `queries/<f>/index.ts`: `<f>Queries`). The order
 * is that of docs/events.md (events) and of routing (operations, in the order of the parts): the lot search's
 * `/v1/lots/search` comes before `/v1/lots/{id}`. Projections and reactors run in the order of the parts too
 * (a feature's reactors are registered by its commands part, `commands/<f>/reactors.ts`).
 */
export const features: Feature[] = [
  defineFeature('access', accessCommands, credentialsQueries, accessReadModels),
  defineFeature(
    'catalogue',
    catalogueCommands,
    catalogueReadModels,
    lotSearchReadModels,
    bidsReadModels,
    attributesReadModels,
    auctionsQueries,
    auctionCatalogueQueries,
    categoriesQueries,
    lotSearchQueries,
    lotsQueries,
    attributesQueries,
    lotLinksQueries,
    bidsQueries,
    consignmentsQueries,
    liveQueries,
  ),
  // A lot's stream: the events catalogue intake and timed bidding both write.
  defineFeature('lots', lotsCommands),
  // The house's cost rules and the all-in cost estimate of a lot (COSTS.md).
  defineFeature('costs', costsCommands, costsReadModels, costsQueries),
  // Read models before the commands' part, whose reactors then run after the projections.
  defineFeature(
    'bidding',
    biddingReadModels,
    biddingCommands,
    biddingQueries,
    auctionStreamQueries,
    streamTicketsQueries,
    memberStreamQueries,
  ),
  defineFeature('documents', documentsCommands, documentsReadModels, documentsQueries),
  defineFeature('translations', translationsCommands, translationsReadModels, translationsQueries),
  defineFeature('members', membersCommands, membersReadModels, membersQueries, sessionsQueries),
  defineFeature('profile', profileQueries, profileCommands, profileReadModels),
  defineFeature('phone-verification', phoneVerificationCommands),
  defineFeature('registrations', registrationsCommands, registrationsReadModels, registrationsQueries),
  defineFeature('identity-documents', identityDocumentsCommands, identityDocumentsReadModels, identityDocumentsQueries),
  defineFeature('invoices', invoicesCommands, invoicesReadModels, invoicesQueries),
  // The reminders reactor (notificationsCommands) waits for the subscriptions projection: it comes after it.
  defineFeature('notifications', notificationsReadModels, notificationsCommands),
  defineFeature('watchlist', watchlistQueries, watchlistCommands, watchlistReadModels),
  // Read models before the commands' part, whose reactor then runs after the subscriptions' projection.
  defineFeature('push', pushQueries, pushReadModels, pushCommands),
  defineFeature('terms', termsCommands, termsReadModels),
  defineFeature('contact', contactCommands),
  defineFeature('backoffice-feed', backofficeFeedQueries),
  // Routed in this order: /webhooks before /webhooks/{id}, GET /webhooks/{id} beside DELETE.
  defineFeature('webhooks', webhooksQueries, webhooksCommands, webhooksReadModels),
  defineFeature('backoffice-intake', backofficeIntakeCommands),
  defineFeature('idempotency', idempotencyPart),
];

/** What the features register, checked once (no event type, projection, job or intake kind twice). */
export const service = assembleFeatures(features);
