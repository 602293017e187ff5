import type { EventOf } from '../../src/events/define.ts';

/** The events of profile (none yet). */
export const profileEvents = [] as const;
export type ProfileEvent = EventOf<(typeof profileEvents)[number]>;
