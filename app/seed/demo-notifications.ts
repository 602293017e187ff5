/** Demo intake records of notifications (API.md "Demo data"), for a given "now" (none yet). */
export function* demoNotificationsRecords(_now: Date): Generator<{ kind: string } & Record<string, unknown>> {}
