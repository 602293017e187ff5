/**
 * Demo intake records of members (API.md "Demo data"), for a given "now". None beyond the demo member
 * `bidder@example.com` of each public tenant, which app/seed/demo.ts yields with the catalogue as a `member`
 * record: that record runs through the members' own intake kind (commands/members/intake.ts), which claims
 * its address, so a sign-up with it is a 409. Sign-ups, confirmations and resets happen through the API.
 */
export function* demoMembersRecords(_now: Date): Generator<{ kind: string } & Record<string, unknown>> {}
