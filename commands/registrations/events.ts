import type { EventOf } from '../../src/events/define.ts';

/** The events of registrations (none yet). */
export const registrationsEvents = [] as const;
export type RegistrationsEvent = EventOf<(typeof registrationsEvents)[number]>;
