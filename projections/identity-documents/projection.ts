import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { identityDocumentsEvents } from '../../commands/identity-documents/events.ts';
import { IDENTITY_DOCUMENTS, type IdentityDocumentDoc } from './collections.ts';

export const identityDocumentsProjection = defineDocumentProjection({
  name: 'identity-documents',
  events: [identityDocumentsEvents],
  collections: [{ name: IDENTITY_DOCUMENTS, indexes: [{ fields: ['MemberId', 'UploadedAt'] }], private: ['Sha256'] }],
  async apply(event, uow) {
    switch (event.type) {
      case 'IdentityDocumentUploaded': {
        const d = event.data;
        await uow.update<IdentityDocumentDoc>(IDENTITY_DOCUMENTS, d.tenant, d.documentId, () => ({
          Id: d.documentId,
          MemberId: d.memberId,
          DocumentType: d.documentType,
          FileName: d.fileName,
          ContentType: d.contentType,
          Size: d.size,
          Sha256: d.sha256,
          UploadedAt: d.at,
          Status: 'pending',
          ReviewedAt: null,
        }));
        return;
      }
      case 'IdentityDocumentReviewed': {
        const d = event.data;
        await uow.update<IdentityDocumentDoc>(IDENTITY_DOCUMENTS, d.tenant, d.documentId, (doc) =>
          doc ? { ...doc, Status: d.status, ReviewedAt: d.at } : null,
        );
        return;
      }
      case 'IdentityDocumentRemoved':
        await uow.update<IdentityDocumentDoc>(IDENTITY_DOCUMENTS, event.data.tenant, event.data.documentId, () => null);
        return;
    }
  },
});
