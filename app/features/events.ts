import { service } from './index.ts';

/**
 * Every event type of the public contract, feature by feature in the order of app/features/index.ts: what
 * docs/events.md lists (`npm run docs:events`). The core has no such list: each decider, projection and
 * reactor is typed over the event sets of the features it writes or reads.
 */
export const eventCatalog = service.events;
