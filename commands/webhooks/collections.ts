// The webhooks' delivery state, written by their delivery worker (delivery-worker.ts) and read by the webhook
// queries: not a projection's (deliveries are not events), so a rebuild never touches it.
import type { CollectionSpec, Doc, TenantScope } from '../../src/ports/read-models.ts';

/**
 * Where the delivery worker stands with a webhook: written by the worker only, never rebuilt from the log (it
 * records deliveries, which are not events).
 */
export interface WebhookCursorDoc extends Doc {
  WebhookId: number;
  /** The log position of the last event delivered or passed over (not of the webhook's types). */
  After: number;
  /** The replay request this cursor has taken into account. */
  ReplaySeq: number;
  /** Failed tries of the event waiting to be delivered (0: none failed). */
  Attempt: number;
  /** When the next try of the waiting event is due (epoch ms; null: no retry waits). */
  NextAttemptAt: number | null;
  /** The waiting event (after a failed try), for the deliveries log's `pending` line. */
  PendingEventId: string | null;
  PendingType: string | null;
  PendingPosition: number | null;
  /** The log position of the last event delivered (null: none yet). */
  LastDeliveredPosition: number | null;
  /** Lines written to the deliveries log so far (the next line's number). */
  Lines: number;
}

/** One try of one delivery (the deliveries log keeps the last DELIVERIES_KEPT of a webhook). */
export interface WebhookDeliveryDoc extends Doc {
  WebhookId: number;
  Line: number;
  EventId: string;
  Type: string;
  Position: number;
  Attempt: number;
  Outcome: 'delivered' | 'failed';
  ResponseStatus: number | null;
  At: string;
}

export const WEBHOOK_CURSORS = 'webhook_cursors';
export const WEBHOOK_DELIVERIES = 'webhook_deliveries';
/** Lines of the deliveries log kept per webhook. */
export const DELIVERIES_KEPT = 1000;

/** The delivery worker's collections, registered by webhooksCommands (every role declares them). */
export const deliveryCollections: CollectionSpec[] = [
  { name: WEBHOOK_CURSORS },
  { name: WEBHOOK_DELIVERIES, indexes: [{ fields: ['WebhookId', 'Line'] }] },
];

export const webhookCursors = (db: TenantScope) => db.collection<WebhookCursorDoc>(WEBHOOK_CURSORS);
export const webhookDeliveries = (db: TenantScope) => db.collection<WebhookDeliveryDoc>(WEBHOOK_DELIVERIES);
export const deliveryLineId = (webhookId: number, line: number) => `${webhookId}:${line}`;
