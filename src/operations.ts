import type { Operation } from './http/operation.ts';
import { credentialOperations } from '../queries/credentials/operations.ts';
import { auctionOperations } from '../queries/auctions/operations.ts';
import { categoryOperations } from '../queries/categories/operations.ts';
import { lotOperations } from '../queries/lots/operations.ts';
import { lotSearchOperations } from '../queries/lot-search/operations.ts';
import { sessionOperations } from '../queries/sessions/operations.ts';
import { profileOperations } from '../queries/profile/operations.ts';
import { watchlistQueryOperations } from '../queries/watchlist/operations.ts';
import { watchlistCommandOperations } from '../commands/watchlist/operations.ts';
import { termsOperations } from '../commands/terms/operations.ts';
import { contactOperations } from '../commands/contact/operations.ts';

/**
 * Every HTTP operation. Order matters only where paths overlap: /v1/lots/search before /v1/lots/{id}.
 */
export const operations = [
  ...credentialOperations,
  ...auctionOperations,
  ...termsOperations,
  ...categoryOperations,
  ...lotSearchOperations,
  ...lotOperations,
  ...watchlistQueryOperations,
  ...watchlistCommandOperations,
  ...sessionOperations,
  ...profileOperations,
  ...contactOperations,
] as unknown as Operation[];
