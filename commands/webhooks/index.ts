import type { FeaturePart } from '../../src/feature.ts';
import { webhooksEvents } from './events.ts';
import { webhooksCommandOperations } from './operations.ts';

export * from './events.ts';
export * from './decide.ts';
export { WebhookDispatcher, RETRY_SCHEDULE_MS } from './dispatcher.ts';

/** The write side of the back office's webhooks: what it registers (app/features/index.ts); its dispatcher runs in the worker role (app/runtime.ts). */
export const webhooksCommands: FeaturePart = { events: webhooksEvents, operations: webhooksCommandOperations };
