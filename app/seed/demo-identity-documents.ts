/** Demo intake records of identity documents (API.md "Demo data"), for a given "now" (none yet). */
export function* demoIdentityDocumentsRecords(_now: Date): Generator<{ kind: string } & Record<string, unknown>> {}
