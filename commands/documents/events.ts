import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, languageCode, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

/** What an auction document is, as API.md names it. */
export const documentKinds = ['terms', 'conditions', 'catalogue-supplement', 'other'] as const;
export type DocumentKind = (typeof documentKinds)[number];

/** The stored bytes of a document: found in the FileStore by their SHA-256 (see `documentFileKey`). */
const storedFile = {
  contentType: z
    .string()
    .max(255)
    .regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'a media type such as application/pdf'),
  size: z
    .number()
    .int()
    .min(0)
    .max(100 * 1024 * 1024),
  sha256: z.string().regex(/^[a-f0-9]{64}$/),
};

export const AuctionDocumentPublished = defineEvent({
  type: 'AuctionDocumentPublished',
  version: 1,
  stream: 'auctiondocument-{tenant}-{documentId}',
  description:
    'Catalogue intake: a document of an auction (its terms, conditions, a catalogue supplement) was published or replaced. The bytes are in the file store under their SHA-256.',
  schema: z.object({
    tenant: tenantId,
    documentId: positiveId,
    auctionId: positiveId,
    name: z.string().min(1).max(200),
    kind: z.enum(documentKinds),
    language: languageCode,
    ...storedFile,
    at: isoDateTime,
  }),
});

export const AuctionDocumentRemoved = defineEvent({
  type: 'AuctionDocumentRemoved',
  version: 1,
  stream: 'auctiondocument-{tenant}-{documentId}',
  description: 'Catalogue intake: an auction document was removed (withdrawn); it is no longer listed or served.',
  schema: z.object({ tenant: tenantId, documentId: positiveId, auctionId: positiveId, at: isoDateTime }),
});

export const LotConditionReportPublished = defineEvent({
  type: 'LotConditionReportPublished',
  version: 1,
  stream: 'conditionreport-{tenant}-{lotId}',
  description:
    'Catalogue intake: the condition report of a lot was published or replaced (served as the lot document `condition-report`). The bytes are in the file store under their SHA-256.',
  schema: z.object({
    tenant: tenantId,
    lotId: positiveId,
    name: z.string().min(1).max(200),
    language: languageCode,
    ...storedFile,
    at: isoDateTime,
  }),
});

export const documentEvents = defineEvents([AuctionDocumentPublished, AuctionDocumentRemoved, LotConditionReportPublished]);
export type DocumentEvent = EventsOf<typeof documentEvents>;

export const auctionDocumentStreamId = (tenant: string, documentId: number) => `auctiondocument-${tenant}-${documentId}`;
export const conditionReportStreamId = (tenant: string, lotId: number) => `conditionreport-${tenant}-${lotId}`;
/** Where a document's bytes are kept in the tenant's FileStore: content-addressed, so a re-import stores nothing new. */
export const documentFileKey = (sha256: string) => `documents/${sha256}`;
