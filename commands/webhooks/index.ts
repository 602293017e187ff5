import type { FeaturePart } from '../../src/feature.ts';
import { webhooksEvents } from './events.ts';
import { webhooksCommandOperations } from './operations.ts';
import { deliveryCollections } from './collections.ts';
import { webhooksWorkers } from './delivery-worker.ts';

export * from './events.ts';
export * from './decide.ts';
export * from './collections.ts';
export { WebhookDeliveryWorker, RETRY_SCHEDULE_MS } from './delivery-worker.ts';

/**
 * The write side of the back office's webhooks: what it registers (app/features/index.ts): its events, command
 * operations, and its delivery worker (run by the worker role) with the collections that worker writes.
 */
export const webhooksCommands: FeaturePart = {
  events: webhooksEvents,
  operations: webhooksCommandOperations,
  collections: deliveryCollections,
  workers: webhooksWorkers,
};
