import {
  auctionDocumentDecider,
  conditionReportDecider,
  type AuctionDocumentData,
  type ConditionReportData,
} from '../../commands/documents/decide.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const later = '2026-11-23T08:30:00.000Z';
const hash = (c: string) => c.repeat(64);

const document: AuctionDocumentData = {
  tenant: 'demo',
  documentId: 9,
  auctionId: 2,
  name: 'Terms of sale.pdf',
  kind: 'terms',
  language: 'en',
  contentType: 'application/pdf',
  size: 2143,
  sha256: hash('a'),
  at,
};

const report: ConditionReportData = {
  tenant: 'demo',
  lotId: 7,
  name: 'condition-report.pdf',
  language: 'en',
  contentType: 'application/pdf',
  size: 1200,
  sha256: hash('c'),
  at,
};

describe('document intake deciders', () => {
  describe('auction documents', () => {
    it('publishes a new document', () => {
      spec(auctionDocumentDecider)
        .given([])
        .when({ type: 'PublishAuctionDocument', data: document })
        .then([{ type: 'AuctionDocumentPublished', data: document }]);
    });

    it('appends nothing when the same content comes again, even sent at another time', () => {
      spec(auctionDocumentDecider)
        .given([{ type: 'AuctionDocumentPublished', data: document }])
        .when({ type: 'PublishAuctionDocument', data: { ...document, at: later } })
        .thenNothingHappened();
      spec(auctionDocumentDecider)
        .given([{ type: 'AuctionDocumentPublished', data: document }])
        .when({ type: 'PublishAuctionDocument', data: { ...document } })
        .thenNothingHappened();
    });

    it('publishes again when the bytes changed', () => {
      const changed = { ...document, size: 3001, sha256: hash('b'), at: later };
      spec(auctionDocumentDecider)
        .given([{ type: 'AuctionDocumentPublished', data: document }])
        .when({ type: 'PublishAuctionDocument', data: changed })
        .then([{ type: 'AuctionDocumentPublished', data: changed }]);
    });

    it('publishes again when the name, kind, language, content type or auction changed', () => {
      const changes: Array<Partial<AuctionDocumentData>> = [
        { name: 'Villkor.pdf' },
        { kind: 'conditions' },
        { language: 'sv' },
        { contentType: 'application/octet-stream' },
        { auctionId: 3 },
      ];
      for (const change of changes) {
        const changed = { ...document, ...change, at: later };
        spec(auctionDocumentDecider)
          .given([{ type: 'AuctionDocumentPublished', data: document }])
          .when({ type: 'PublishAuctionDocument', data: changed })
          .then([{ type: 'AuctionDocumentPublished', data: changed }]);
      }
    });

    it('compares with the latest version: going back to the first content publishes it again', () => {
      const second = { ...document, size: 3001, sha256: hash('b'), at: later };
      spec(auctionDocumentDecider)
        .given([
          { type: 'AuctionDocumentPublished', data: document },
          { type: 'AuctionDocumentPublished', data: second },
        ])
        .when({ type: 'PublishAuctionDocument', data: { ...document, at: later } })
        .then([{ type: 'AuctionDocumentPublished', data: { ...document, at: later } }]);
    });

    it('removes a published document, naming the auction it belonged to', () => {
      spec(auctionDocumentDecider)
        .given([{ type: 'AuctionDocumentPublished', data: document }])
        .when({ type: 'RemoveAuctionDocument', tenant: 'demo', documentId: 9, at: later })
        .then([{ type: 'AuctionDocumentRemoved', data: { tenant: 'demo', documentId: 9, auctionId: 2, at: later } }]);
    });

    it('names the auction of the latest version when a document moved before it was removed', () => {
      const moved = { ...document, auctionId: 5, at: later };
      spec(auctionDocumentDecider)
        .given([
          { type: 'AuctionDocumentPublished', data: document },
          { type: 'AuctionDocumentPublished', data: moved },
        ])
        .when({ type: 'RemoveAuctionDocument', tenant: 'demo', documentId: 9, at: later })
        .then([{ type: 'AuctionDocumentRemoved', data: { tenant: 'demo', documentId: 9, auctionId: 5, at: later } }]);
    });

    it('appends nothing when removing a document that was never published', () => {
      spec(auctionDocumentDecider)
        .given([])
        .when({ type: 'RemoveAuctionDocument', tenant: 'demo', documentId: 9, at })
        .thenNothingHappened();
    });

    it('appends nothing when removing a document already removed', () => {
      spec(auctionDocumentDecider)
        .given([
          { type: 'AuctionDocumentPublished', data: document },
          { type: 'AuctionDocumentRemoved', data: { tenant: 'demo', documentId: 9, auctionId: 2, at } },
        ])
        .when({ type: 'RemoveAuctionDocument', tenant: 'demo', documentId: 9, at: later })
        .thenNothingHappened();
    });

    it('publishes a removed document again when the same content comes back', () => {
      spec(auctionDocumentDecider)
        .given([
          { type: 'AuctionDocumentPublished', data: document },
          { type: 'AuctionDocumentRemoved', data: { tenant: 'demo', documentId: 9, auctionId: 2, at } },
        ])
        .when({ type: 'PublishAuctionDocument', data: { ...document, at: later } })
        .then([{ type: 'AuctionDocumentPublished', data: { ...document, at: later } }]);
    });
  });

  describe('condition reports', () => {
    it('publishes a new condition report', () => {
      spec(conditionReportDecider)
        .given([])
        .when(report)
        .then([{ type: 'LotConditionReportPublished', data: report }]);
    });

    it('appends nothing when the same report comes again, even sent at another time', () => {
      spec(conditionReportDecider)
        .given([{ type: 'LotConditionReportPublished', data: report }])
        .when({ ...report, at: later })
        .thenNothingHappened();
    });

    it('publishes again when the report changed', () => {
      for (const change of [{ size: 1500, sha256: hash('d') }, { name: 'Lot 7.pdf' }, { language: 'sv' }, { contentType: 'text/plain' }]) {
        const changed = { ...report, ...change, at: later };
        spec(conditionReportDecider)
          .given([{ type: 'LotConditionReportPublished', data: report }])
          .when(changed)
          .then([{ type: 'LotConditionReportPublished', data: changed }]);
      }
    });
  });
});
