import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

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

export const WEBHOOKS = 'webhooks';

export const webhooks = (db: TenantScope) => db.collection<WebhookDoc>(WEBHOOKS);
