import type { EventOf } from '../../src/events/define.ts';

/** The events of identity documents (none yet). */
export const identityDocumentsEvents = [] as const;
export type IdentityDocumentsEvent = EventOf<(typeof identityDocumentsEvents)[number]>;
