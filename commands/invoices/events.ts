import type { EventOf } from '../../src/events/define.ts';

/** The events of invoices (none yet). */
export const invoicesEvents = [] as const;
export type InvoicesEvent = EventOf<(typeof invoicesEvents)[number]>;
