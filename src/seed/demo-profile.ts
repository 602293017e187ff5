/** Demo intake records of profile (API.md "Demo data"), for a given "now" (none yet). */
export function* demoProfileRecords(_now: Date): Generator<{ kind: string } & Record<string, unknown>> {}
