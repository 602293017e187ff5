import type { CollectionSpec, Doc, TenantScope } from '../../src/ports/read-models.ts';

/** A tenant's webhook as its projection keeps it (deleted ones are removed). `Secret` never leaves the service but in the registration's answer. */
export interface WebhookDoc extends Doc {
  Id: number;
  Url: string;
  Types: string[] | null;
  Description: string;
  Status: 'active' | 'disabled';
  CreatedAt: string;
  Secret: string;
  /** The log position of its registration: deliveries start after it. */
  StartAfter: number;
  /** The position of the latest replay request (0: none), and the position it asked to start after. */
  ReplaySeq: number;
  ReplayAfter: number;
}

/**
 * Where the dispatcher (worker role) stands with a webhook: written by the dispatcher only, never rebuilt from
 * the log (it records deliveries, which are not events).
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

export const WEBHOOKS = 'webhooks';
export const WEBHOOK_CURSORS = 'webhook_cursors';
export const WEBHOOK_DELIVERIES = 'webhook_deliveries';
/** Lines of the deliveries log kept per webhook. */
export const DELIVERIES_KEPT = 1000;

/** The dispatcher's collections (not a projection's: a rebuild never touches them). */
export const dispatcherCollections: CollectionSpec[] = [
  { name: WEBHOOK_CURSORS },
  { name: WEBHOOK_DELIVERIES, indexes: [{ fields: ['WebhookId', 'Line'] }] },
];

export const webhooks = (db: TenantScope) => db.collection<WebhookDoc>(WEBHOOKS);
export const webhookCursors = (db: TenantScope) => db.collection<WebhookCursorDoc>(WEBHOOK_CURSORS);
export const webhookDeliveries = (db: TenantScope) => db.collection<WebhookDeliveryDoc>(WEBHOOK_DELIVERIES);
export const deliveryLineId = (webhookId: number, line: number) => `${webhookId}:${line}`;
