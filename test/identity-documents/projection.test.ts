import { identityDocumentsReadModels } from '../../projections/identity-documents/index.ts';
import type { IdentityDocumentsEvent, IdentityDocumentType } from '../../commands/identity-documents/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const PASSPORT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const ADDRESS = '9b2f4c1e-8d3a-4e6b-9a7f-2c3d4e5f6a7b';
const uploaded = (
  documentId: string,
  documentType: IdentityDocumentType,
  minute: number,
  tenant = 'demo',
  memberId = 1,
): IdentityDocumentsEvent => ({
  type: 'IdentityDocumentUploaded',
  data: {
    tenant,
    memberId,
    documentId,
    documentType,
    fileName: `${documentType}.pdf`,
    contentType: 'application/pdf',
    size: 2048,
    sha256: 'ab'.repeat(32),
    at: at(minute),
  },
});
const reviewed = (documentId: string, status: 'approved' | 'rejected', minute: number, tenant = 'demo'): IdentityDocumentsEvent => ({
  type: 'IdentityDocumentReviewed',
  data: { tenant, memberId: 1, documentId, status, at: at(minute) },
});
const removed = (documentId: string, minute: number): IdentityDocumentsEvent => ({
  type: 'IdentityDocumentRemoved',
  data: { tenant: 'demo', memberId: 1, documentId, at: at(minute) },
});
const doc = (
  id: string,
  documentType: IdentityDocumentType,
  minute: number,
  review: { Status: string; ReviewedAt: string | null } = { Status: 'pending', ReviewedAt: null },
) => ({
  _id: id,
  Id: id,
  MemberId: 1,
  DocumentType: documentType,
  FileName: `${documentType}.pdf`,
  ContentType: 'application/pdf',
  Size: 2048,
  Sha256: 'ab'.repeat(32),
  UploadedAt: at(minute),
  ...review,
});

describe('identity documents projection', () => {
  it('lists an uploaded document as pending until the house reviews it', async () => {
    await givenEvents(uploaded(PASSPORT, 'passport', 0), uploaded(ADDRESS, 'proof-of-address', 1))
      .whenProjected(identityDocumentsReadModels)
      .thenDocuments('identity_documents', 'demo', [doc(PASSPORT, 'passport', 0), doc(ADDRESS, 'proof-of-address', 1)]);
  });

  it("keeps the house's latest decision and when it was made", async () => {
    await givenEvents(uploaded(PASSPORT, 'passport', 0), reviewed(PASSPORT, 'rejected', 2), reviewed(PASSPORT, 'approved', 5))
      .whenProjected(identityDocumentsReadModels)
      .thenDocuments('identity_documents', 'demo', [doc(PASSPORT, 'passport', 0, { Status: 'approved', ReviewedAt: at(5) })]);
  });

  it('removes a document the member removed, and ignores a review of a document it does not hold', async () => {
    await givenEvents(
      uploaded(PASSPORT, 'passport', 0),
      uploaded(ADDRESS, 'proof-of-address', 1),
      removed(ADDRESS, 2),
      reviewed(ADDRESS, 'approved', 3),
    )
      .whenProjected(identityDocumentsReadModels)
      .thenDocuments('identity_documents', 'demo', [doc(PASSPORT, 'passport', 0)]);
  });

  it("keeps each tenant's documents apart: a review in one tenant does not reach the other's", async () => {
    await givenEvents(
      uploaded(PASSPORT, 'passport', 0),
      uploaded(PASSPORT, 'passport', 1, 'demo2'),
      reviewed(PASSPORT, 'approved', 2, 'demo2'),
    )
      .whenProjected(identityDocumentsReadModels)
      .thenDocuments('identity_documents', 'demo', [doc(PASSPORT, 'passport', 0)])
      .thenDocuments('identity_documents', 'demo2', [doc(PASSPORT, 'passport', 1, { Status: 'approved', ReviewedAt: at(2) })]);
  });
});
