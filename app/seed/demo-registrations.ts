/**
 * Demo intake records of registrations (API.md "Demo data"), for a given "now": the demo member of `demo` is
 * approved for auction 1 (current) and has a pending request for auction 3 (upcoming, approved by hand), so a
 * front end shows both states; auctions 2 and 5 (terms required) and every auction of `demo2` are left
 * unregistered.
 */
export function* demoRegistrationsRecords(now: Date): Generator<{ kind: string } & Record<string, unknown>> {
  const ago = (days: number) => new Date(now.getTime() - days * 86400_000).toISOString();
  yield { kind: 'registrationRequest', tenant: 'demo', memberId: 1, auctionId: 1, at: ago(3) };
  yield { kind: 'registrationDecision', tenant: 'demo', memberId: 1, auctionId: 1, status: 'approved', at: ago(2) };
  yield { kind: 'registrationRequest', tenant: 'demo', memberId: 1, auctionId: 3, at: ago(1) };
}
