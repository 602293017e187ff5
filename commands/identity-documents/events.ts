import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

/** What an identity document is, as API.md names it. */
export const identityDocumentTypes = ['passport', 'national-id', 'driving-licence', 'proof-of-address', 'company-registration'] as const;
export type IdentityDocumentType = (typeof identityDocumentTypes)[number];

/** The types of file accepted, decided by the file's bytes (never by the name or the declared type). */
export const identityDocumentContentTypes = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type IdentityDocumentContentType = (typeof identityDocumentContentTypes)[number];

/** What the house decided about a document; `pending` until it decides. */
export const identityDocumentDecisions = ['approved', 'rejected'] as const;
export type IdentityDocumentDecision = (typeof identityDocumentDecisions)[number];
export type IdentityDocumentStatus = 'pending' | IdentityDocumentDecision;

/** The largest identity document, in bytes (10 MiB). */
export const MAX_IDENTITY_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** Identity documents a member may hold at once. */
export const MAX_IDENTITY_DOCUMENTS = 10;
/** The longest file name kept (UTF-16 code units, as the schemas count). */
export const MAX_FILE_NAME_LENGTH = 200;

/** A document id: a random uuid (v4), so one member's ids say nothing about another's. */
export const identityDocumentId = z.uuid({ version: 'v4' });

const ofMember = { tenant: tenantId, memberId: positiveId, documentId: identityDocumentId };

export const IdentityDocumentUploaded = defineEvent({
  type: 'IdentityDocumentUploaded',
  version: 1,
  stream: 'identitydocuments-{tenant}-{memberId}',
  private: ['sha256'],
  description:
    'A member uploaded an identity document for the house to check (status pending). The bytes are in the file store under ' +
    '`identity-documents/{memberId}/{documentId}` of the tenant; `contentType` is decided from the bytes; `fileName` is the sanitised name the member gave.',
  schema: z.object({
    ...ofMember,
    documentType: z.enum(identityDocumentTypes),
    fileName: z.string().min(1).max(MAX_FILE_NAME_LENGTH),
    contentType: z.enum(identityDocumentContentTypes),
    size: z.number().int().min(1).max(MAX_IDENTITY_DOCUMENT_BYTES),
    sha256: z.string().regex(/^[a-f0-9]{64}$/),
    at: isoDateTime,
  }),
});

export const IdentityDocumentReviewed = defineEvent({
  type: 'IdentityDocumentReviewed',
  version: 1,
  stream: 'identitydocuments-{tenant}-{memberId}',
  description: 'The house approved or rejected an identity document (through intake); a later review may change the decision.',
  schema: z.object({ ...ofMember, status: z.enum(identityDocumentDecisions), at: isoDateTime }),
});

export const IdentityDocumentRemoved = defineEvent({
  type: 'IdentityDocumentRemoved',
  version: 1,
  stream: 'identitydocuments-{tenant}-{memberId}',
  description: 'A member removed one of their identity documents; its file is then deleted from the file store (a background job).',
  schema: z.object({ ...ofMember, at: isoDateTime }),
});

export const identityDocumentsEvents = defineEvents([IdentityDocumentUploaded, IdentityDocumentReviewed, IdentityDocumentRemoved]);
export type IdentityDocumentsEvent = EventsOf<typeof identityDocumentsEvents>;

/** One stream per member: the limit of documents is decided on it, with its expected revision. */
export const identityDocumentsStreamId = (tenant: string, memberId: number) => `identitydocuments-${tenant}-${memberId}`;
/** Where a document's bytes are kept in the tenant's FileStore: the key names the member and the document. */
export const identityDocumentFileKey = (memberId: number, documentId: string) => `identity-documents/${memberId}/${documentId}`;
