import { defineDocumentProjection } from '../../src/projector/projection.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import { documentEvents, type DocumentKind } from '../../commands/documents/events.ts';

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

/** What every stored document shows of its file. */
const storedFile = (d: { name: string; language: string; contentType: string; size: number; sha256: string; at: string }) => ({
  Name: d.name,
  Language: d.language,
  ContentType: d.contentType,
  Size: d.size,
  Sha256: d.sha256,
  PublishedAt: d.at,
});

export const documentsProjection = defineDocumentProjection({
  name: 'documents',
  events: [documentEvents],
  collections: [{ name: AUCTION_DOCUMENTS, indexes: [{ fields: ['AuctionId', 'Id'] }] }, { name: LOT_DOCUMENTS, indexes: [{ fields: ['LotId'] }] }],
  async apply(event, uow) {
    switch (event.type) {
      case 'AuctionDocumentPublished': {
        const d = event.data;
        await uow.update<AuctionDocumentDoc>(AUCTION_DOCUMENTS, d.tenant, String(d.documentId), () => ({
          Id: d.documentId,
          AuctionId: d.auctionId,
          Kind: d.kind,
          ...storedFile(d),
        }));
        return;
      }
      case 'AuctionDocumentRemoved':
        await uow.update<AuctionDocumentDoc>(AUCTION_DOCUMENTS, event.data.tenant, String(event.data.documentId), () => null);
        return;
      case 'LotConditionReportPublished': {
        const d = event.data;
        await uow.update<LotDocumentDoc>(LOT_DOCUMENTS, d.tenant, lotDocumentId(d.lotId, 'condition-report'), () => ({
          LotId: d.lotId,
          Fieldname: 'condition-report',
          ...storedFile(d),
        }));
        return;
      }
    }
  },
});
