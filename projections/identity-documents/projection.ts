import { defineDocumentProjection } from '../../src/projector/projection.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import {
  identityDocumentsEvents,
  type IdentityDocumentContentType,
  type IdentityDocumentStatus,
  type IdentityDocumentType,
} from '../../commands/identity-documents/events.ts';

/** A member's identity documents (the member's own list; the bytes stay in the file store, never served). */
export const IDENTITY_DOCUMENTS = 'identity_documents';

export interface IdentityDocumentDoc extends Doc {
  Id: string;
  MemberId: number;
  DocumentType: IdentityDocumentType;
  FileName: string;
  ContentType: IdentityDocumentContentType;
  Size: number;
  Sha256: string;
  UploadedAt: string;
  Status: IdentityDocumentStatus;
  /** When the house last decided; null while pending. */
  ReviewedAt: string | null;
}

export const identityDocuments = (db: TenantScope) => db.collection<IdentityDocumentDoc>(IDENTITY_DOCUMENTS);

export const identityDocumentsProjection = defineDocumentProjection({
  name: 'identity-documents',
  events: [identityDocumentsEvents],
  collections: [{ name: IDENTITY_DOCUMENTS, indexes: [{ fields: ['MemberId', 'UploadedAt'] }] }],
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
