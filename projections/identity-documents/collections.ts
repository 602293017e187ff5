import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import type {
  IdentityDocumentContentType,
  IdentityDocumentStatus,
  IdentityDocumentType,
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
