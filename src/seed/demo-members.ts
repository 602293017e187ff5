/** Demo intake records of members (API.md "Demo data"), for a given "now" (none yet). */
export function* demoMembersRecords(_now: Date): Generator<{ kind: string } & Record<string, unknown>> {}
