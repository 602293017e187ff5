import type { Decider } from '../../src/decider.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import type { EventOf } from '../../src/events/define.ts';
import { assertNever } from '../../src/assert-never.ts';
import {
  identityDocumentsEvents,
  MAX_IDENTITY_DOCUMENTS,
  type IdentityDocumentDecision,
  type IdentityDocumentsEvent,
  type IdentityDocumentStatus,
  type IdentityDocumentUploaded,
} from './events.ts';

type UploadedData = EventOf<typeof IdentityDocumentUploaded>['data'];

/** The identity documents a member holds now (removed ones are gone): document id → status. */
export type IdentityDocumentsState = Map<string, IdentityDocumentStatus>;

export type IdentityDocumentsCommand =
  | ({ type: 'UploadIdentityDocument' } & UploadedData)
  | { type: 'RemoveIdentityDocument'; tenant: string; memberId: number; documentId: string; at: string }
  | { type: 'ReviewIdentityDocument'; tenant: string; memberId: number; documentId: string; status: IdentityDocumentDecision; at: string };

/**
 * A member's identity documents, decided on the member's own stream: the limit of 10 is checked against the
 * stream's state and the append carries the stream's revision, so parallel uploads can never exceed it.
 */
export const identityDocumentsDecider: Decider<IdentityDocumentsState, IdentityDocumentsCommand, IdentityDocumentsEvent> = {
  events: identityDocumentsEvents,
  initialState: () => new Map(),
  evolve: (state, event) => {
    switch (event.type) {
      // In place: the runner gives every stream its own state.
      case 'IdentityDocumentUploaded':
        return state.set(event.data.documentId, 'pending');
      case 'IdentityDocumentReviewed':
        return state.has(event.data.documentId) ? state.set(event.data.documentId, event.data.status) : state;
      case 'IdentityDocumentRemoved':
        state.delete(event.data.documentId);
        return state;
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'UploadIdentityDocument': {
        const { type: _type, ...data } = command;
        // A retried command (same id) appends nothing.
        if (state.has(data.documentId)) return [];
        if (state.size >= MAX_IDENTITY_DOCUMENTS) throw new IdentityDocumentLimitError();
        return [{ type: 'IdentityDocumentUploaded', data }];
      }
      case 'RemoveIdentityDocument': {
        if (!state.has(command.documentId)) throw new NotFoundError('No such identity document.');
        const { tenant, memberId, documentId, at } = command;
        return [{ type: 'IdentityDocumentRemoved', data: { tenant, memberId, documentId, at } }];
      }
      case 'ReviewIdentityDocument': {
        const current = state.get(command.documentId);
        if (current === undefined) throw new NotFoundError(`Member ${command.memberId} has no identity document ${command.documentId}.`);
        if (current === command.status) return [];
        const { tenant, memberId, documentId, status, at } = command;
        return [{ type: 'IdentityDocumentReviewed', data: { tenant, memberId, documentId, status, at } }];
      }
      default:
        return assertNever(command);
    }
  },
};

export class IdentityDocumentLimitError extends ConflictError {
  constructor() {
    super('identity-document-limit-reached', `A member may hold at most ${MAX_IDENTITY_DOCUMENTS} identity documents; remove one first.`);
  }
}
