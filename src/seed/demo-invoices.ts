/** Demo intake records of invoices (API.md "Demo data"), for a given "now" (none yet). */
export function* demoInvoicesRecords(_now: Date): Generator<{ kind: string } & Record<string, unknown>> {}
