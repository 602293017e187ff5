/** Demo intake records of registrations (API.md "Demo data"), for a given "now" (none yet). */
export function* demoRegistrationsRecords(_now: Date): Generator<{ kind: string } & Record<string, unknown>> {}
