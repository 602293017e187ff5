import type { Decider } from '../../src/decider.ts';
import type { EventOf } from '../../src/events/define.ts';
import { documentEvents, type AuctionDocumentPublished, type DocumentEvent, type LotConditionReportPublished } from './events.ts';

export type AuctionDocumentData = EventOf<typeof AuctionDocumentPublished>['data'];
export type ConditionReportData = EventOf<typeof LotConditionReportPublished>['data'];

/** The same document, whenever it was sent: intake records compared without their time. */
const sameContent = <T extends { at: string }>(a: T | null, b: T) => {
  if (!a) return false;
  const { at: _a, ...left } = a;
  const { at: _b, ...right } = b;
  return JSON.stringify(left) === JSON.stringify(right);
};

export type AuctionDocumentCommand =
  | { type: 'PublishAuctionDocument'; data: AuctionDocumentData }
  | { type: 'RemoveAuctionDocument'; tenant: string; documentId: number; at: string };

/** An auction document: published (and replaced by publishing again) or withdrawn. Importing a record again appends nothing. */
export const auctionDocumentDecider: Decider<AuctionDocumentData | null, AuctionDocumentCommand, DocumentEvent> = {
  events: documentEvents,
  initialState: () => null,
  evolve: (state, event) => {
    switch (event.type) {
      case 'AuctionDocumentPublished':
        return event.data;
      case 'AuctionDocumentRemoved':
        return null;
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'PublishAuctionDocument':
        return sameContent(state, command.data) ? [] : [{ type: 'AuctionDocumentPublished', data: command.data }];
      case 'RemoveAuctionDocument': {
        if (!state) return [];
        const { type: _type, ...data } = command;
        return [{ type: 'AuctionDocumentRemoved', data: { ...data, auctionId: state.auctionId } }];
      }
      default:
        return assertNever(command);
    }
  },
};

/** A lot's condition report: publishing a different one replaces it. */
export const conditionReportDecider: Decider<ConditionReportData | null, ConditionReportData, DocumentEvent> = {
  events: documentEvents,
  initialState: () => null,
  evolve: (state, event) => (event.type === 'LotConditionReportPublished' ? event.data : state),
  decide: (data, state) => (sameContent(state, data) ? [] : [{ type: 'LotConditionReportPublished', data }]),
};

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
