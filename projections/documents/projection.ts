import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { documentEvents } from '../../commands/documents/events.ts';
import { AUCTION_DOCUMENTS, LOT_DOCUMENTS, type AuctionDocumentDoc, type LotDocumentDoc, lotDocumentId } from './collections.ts';

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
  collections: [
    { name: AUCTION_DOCUMENTS, indexes: [{ fields: ['AuctionId', 'Id'] }] },
    { name: LOT_DOCUMENTS, indexes: [{ fields: ['LotId'] }] },
  ],
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
