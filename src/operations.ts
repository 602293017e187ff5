import type { Operation } from './http/operation.ts';
import { credentialOperations } from '../queries/credentials/operations.ts';
import { auctionOperations } from '../queries/auctions/operations.ts';
import { auctionCatalogueOperations } from '../queries/auction-catalogue/operations.ts';
import { documentOperations } from '../queries/documents/operations.ts';
import { categoryOperations } from '../queries/categories/operations.ts';
import { lotOperations } from '../queries/lots/operations.ts';
import { lotSearchOperations } from '../queries/lot-search/operations.ts';
import { attributeOperations } from '../queries/attributes/operations.ts';
import { lotLinkOperations } from '../queries/lot-links/operations.ts';
import { bidOperations } from '../queries/bids/operations.ts';
import { consignmentOperations } from '../queries/consignments/operations.ts';
import { liveOperations } from '../queries/live/operations.ts';
import { translationOperations } from '../queries/translations/operations.ts';
import { sessionOperations } from '../queries/sessions/operations.ts';
import { profileOperations } from '../queries/profile/operations.ts';
import { watchlistQueryOperations } from '../queries/watchlist/operations.ts';
import { watchlistCommandOperations } from '../commands/watchlist/operations.ts';
import { termsOperations } from '../commands/terms/operations.ts';
import { contactOperations } from '../commands/contact/operations.ts';

import { membersCommandOperations } from '../commands/members/operations.ts';
import { membersQueryOperations } from '../queries/members/operations.ts';
import { profileCommandOperations } from '../commands/profile/operations.ts';
import { phoneVerificationCommandOperations } from '../commands/phone-verification/operations.ts';
import { registrationsCommandOperations } from '../commands/registrations/operations.ts';
import { registrationsQueryOperations } from '../queries/registrations/operations.ts';
import { identityDocumentsCommandOperations } from '../commands/identity-documents/operations.ts';
import { identityDocumentsQueryOperations } from '../queries/identity-documents/operations.ts';
import { invoicesCommandOperations } from '../commands/invoices/operations.ts';
import { invoicesQueryOperations } from '../queries/invoices/operations.ts';
import { notificationsCommandOperations } from '../commands/notifications/operations.ts';

/**
 * Every HTTP operation. Order matters only where paths overlap: /v1/lots/search before /v1/lots/{id}.
 */
export const operations = [
  ...credentialOperations,
  ...auctionOperations,
  ...auctionCatalogueOperations,
  ...documentOperations,
  ...termsOperations,
  ...categoryOperations,
  ...lotSearchOperations,
  ...lotOperations,
  ...attributeOperations,
  ...lotLinkOperations,
  ...bidOperations,
  ...consignmentOperations,
  ...liveOperations,
  ...translationOperations,
  ...watchlistQueryOperations,
  ...watchlistCommandOperations,
  ...sessionOperations,
  ...profileOperations,
  ...contactOperations,
  ...membersCommandOperations,
  ...membersQueryOperations,
  ...profileCommandOperations,
  ...phoneVerificationCommandOperations,
  ...registrationsCommandOperations,
  ...registrationsQueryOperations,
  ...identityDocumentsCommandOperations,
  ...identityDocumentsQueryOperations,
  ...invoicesCommandOperations,
  ...invoicesQueryOperations,
  ...notificationsCommandOperations,
] as unknown as Operation[];
