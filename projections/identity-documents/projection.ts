import type { DocumentProjection, Projection, ReactorDeps } from '../../src/projector/projection.ts';
import { asAppEvent } from '../../src/events/registry.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import type { IdentityDocumentContentType, IdentityDocumentStatus, IdentityDocumentType } from '../../commands/identity-documents/events.ts';
import { identityDocumentFilesReactor } from '../../commands/identity-documents/files.ts';

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

export const identityDocumentsProjection: DocumentProjection = {
  kind: 'documents',
  name: 'identity-documents',
  collections: [{ name: IDENTITY_DOCUMENTS, indexes: [{ fields: ['MemberId', 'UploadedAt'] }] }],
  handles: ['IdentityDocumentUploaded', 'IdentityDocumentReviewed', 'IdentityDocumentRemoved'],
  async apply(recorded, uow) {
    const event = asAppEvent(recorded);
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
};

/** The projections (and reactors) of identity documents. */
export function identityDocumentsProjections(deps: ReactorDeps): Projection[] {
  return [identityDocumentsProjection, identityDocumentFilesReactor(deps.jobs)];
}
