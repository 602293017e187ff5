import { documentsReadModels } from '../../projections/documents/index.ts';
import type { DocumentEvent, DocumentKind } from '../../commands/documents/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const sha = (c: string) => c.repeat(64);
const file = (name: string, digit: string, minute: number) => ({
  name,
  language: 'en',
  contentType: 'application/pdf',
  size: 2048,
  sha256: sha(digit),
  at: at(minute),
});
const published = (
  documentId: number,
  auctionId: number,
  kind: DocumentKind,
  name: string,
  minute = 0,
  tenant = 'demo',
): DocumentEvent => ({
  type: 'AuctionDocumentPublished',
  data: { tenant, documentId, auctionId, kind, ...file(name, String(documentId % 10), minute) },
});
const removed = (documentId: number, auctionId: number, minute: number): DocumentEvent => ({
  type: 'AuctionDocumentRemoved',
  data: { tenant: 'demo', documentId, auctionId, at: at(minute) },
});
const conditionReport = (lotId: number, name: string, digit: string, minute: number, tenant = 'demo'): DocumentEvent => ({
  type: 'LotConditionReportPublished',
  data: { tenant, lotId, ...file(name, digit, minute) },
});
const stored = (name: string, digit: string, minute: number) => ({
  Name: name,
  Language: 'en',
  ContentType: 'application/pdf',
  Size: 2048,
  Sha256: sha(digit),
  PublishedAt: at(minute),
});

describe('documents projection', () => {
  it("lists an auction's published documents with their kind and stored file", async () => {
    await givenEvents(published(1, 1, 'terms', 'Terms.pdf'), published(2, 1, 'catalogue-supplement', 'Supplement.pdf', 1))
      .whenProjected(documentsReadModels)
      .thenDocuments('auction_documents', 'demo', [
        { _id: '1', Id: 1, AuctionId: 1, Kind: 'terms', ...stored('Terms.pdf', '1', 0) },
        { _id: '2', Id: 2, AuctionId: 1, Kind: 'catalogue-supplement', ...stored('Supplement.pdf', '2', 1) },
      ]);
  });

  it('replaces a document published again, and removes a withdrawn one', async () => {
    await givenEvents(
      published(1, 1, 'terms', 'Terms.pdf'),
      published(2, 1, 'other', 'Other.pdf', 1),
      published(1, 1, 'conditions', 'Conditions.pdf', 2),
      removed(2, 1, 3),
    )
      .whenProjected(documentsReadModels)
      .thenDocuments('auction_documents', 'demo', [
        { _id: '1', Id: 1, AuctionId: 1, Kind: 'conditions', ...stored('Conditions.pdf', '1', 2) },
      ]);
  });

  it("keeps a lot's condition report under the lot, the latest one replacing the earlier", async () => {
    await givenEvents(
      conditionReport(10, 'Report.pdf', 'a', 0),
      conditionReport(11, 'Other.pdf', 'b', 1),
      conditionReport(10, 'Report v2.pdf', 'c', 2),
    )
      .whenProjected(documentsReadModels)
      .thenDocuments('lot_documents', 'demo', [
        { _id: '10:condition-report', LotId: 10, Fieldname: 'condition-report', ...stored('Report v2.pdf', 'c', 2) },
        { _id: '11:condition-report', LotId: 11, Fieldname: 'condition-report', ...stored('Other.pdf', 'b', 1) },
      ]);
  });

  it("keeps each tenant's documents apart: removing a document of one tenant leaves the other's of the same id", async () => {
    await givenEvents(
      published(1, 1, 'terms', 'Terms.pdf'),
      published(1, 1, 'terms', 'Villkor.pdf', 1, 'demo2'),
      removed(1, 1, 2),
      conditionReport(10, 'Rapport.pdf', 'd', 3, 'demo2'),
    )
      .whenProjected(documentsReadModels)
      .thenDocuments('auction_documents', 'demo', [])
      .thenDocuments('auction_documents', 'demo2', [{ _id: '1', Id: 1, AuctionId: 1, Kind: 'terms', ...stored('Villkor.pdf', '1', 1) }])
      .thenDocuments('lot_documents', 'demo2', [
        { _id: '10:condition-report', LotId: 10, Fieldname: 'condition-report', ...stored('Rapport.pdf', 'd', 3) },
      ]);
  });
});
