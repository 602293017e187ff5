import type { EventOf } from '../../src/events/define.ts';

/** The events of notifications (none yet). */
export const notificationsEvents = [] as const;
export type NotificationsEvent = EventOf<(typeof notificationsEvents)[number]>;
