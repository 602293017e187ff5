/**
 * Demo intake records of phone verification (API.md "Demo data"): in tenant `demo` the demo member's phone is
 * verified (SmsVerificationCompleted true); in `demo2` it is not, so a client can try the verification there.
 */
export function* demoPhoneVerificationRecords(now: Date): Generator<{ kind: string } & Record<string, unknown>> {
  yield {
    kind: 'phoneVerified',
    tenant: 'demo',
    memberId: 1,
    phone: '+46700000001',
    at: new Date(now.getTime() - 89 * 86400_000).toISOString(),
  };
}
