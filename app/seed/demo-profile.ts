/**
 * Demo intake records of profile (API.md "Demo data"): the demo member's address in each public tenant, no
 * company (so no VAT check and `VatFree` false: the demo invoices carry VAT).
 */
export function* demoProfileRecords(now: Date): Generator<{ kind: string } & Record<string, unknown>> {
  const at = new Date(now.getTime() - 90 * 86400_000).toISOString();
  const common = { memberId: 1, language: 'en', firstName: 'Demo', lastName: 'Bidder', phone: '+46700000001', at };
  yield {
    kind: 'profile',
    tenant: 'demo',
    ...common,
    gender: 'unspecified',
    address: 'Keizersgracht',
    houseNumber: '123',
    zipCode: '1015 CJ',
    city: 'Amsterdam',
    country: 'NL',
    timezone: 'Europe/Amsterdam',
    mailingLists: 'newsletter',
  };
  yield {
    kind: 'profile',
    tenant: 'demo2',
    ...common,
    address: 'Drottninggatan',
    houseNumber: '5',
    zipCode: '111 51',
    city: 'Stockholm',
    country: 'SE',
    timezone: 'Europe/Stockholm',
  };
}
