/** Demo intake records of phone verification (API.md "Demo data"), for a given "now" (none yet). */
export function* demoPhoneVerificationRecords(_now: Date): Generator<{ kind: string } & Record<string, unknown>> {}
