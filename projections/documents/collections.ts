import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import type { DocumentKind } from '../../commands/documents/events.ts';

/** Auction documents (terms, conditions, catalogue supplements) and the stored documents of lots. */
export const AUCTION_DOCUMENTS = 'auction_documents';
export const LOT_DOCUMENTS = 'lot_documents';

export interface AuctionDocumentDoc extends Doc {
  Id: number;
  AuctionId: number;
  Name: string;
  Kind: DocumentKind;
  Language: string;
  ContentType: string;
  Size: number;
  Sha256: string;
  PublishedAt: string;
}

/** A stored document of a lot, by its fieldname (`condition-report`). */
export interface LotDocumentDoc extends Doc {
  LotId: number;
  Fieldname: 'condition-report';
  Name: string;
  Language: string;
  ContentType: string;
  Size: number;
  Sha256: string;
  PublishedAt: string;
}

export const lotDocumentId = (lotId: number, fieldname: string) => `${lotId}:${fieldname}`;

export const auctionDocuments = (db: TenantScope) => db.collection<AuctionDocumentDoc>(AUCTION_DOCUMENTS);
export const lotDocuments = (db: TenantScope) => db.collection<LotDocumentDoc>(LOT_DOCUMENTS);
