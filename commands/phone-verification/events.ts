import type { EventOf } from '../../src/events/define.ts';

/** The events of phone verification (none yet). */
export const phoneVerificationEvents = [] as const;
export type PhoneVerificationEvent = EventOf<(typeof phoneVerificationEvents)[number]>;
