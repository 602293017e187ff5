/**
 * Demo intake records of invoices (API.md "Demo data"), for a given "now": the price lists of `demo` (EUR) and
 * `demo2` (SEK), and the demo member's invoices: in `demo` one paid and one unpaid (auction 4, closed), in
 * `demo2` one unpaid. The register numbers them (1, 2, … per house). They are the demo's past, of which its
 * member knows: issued with `notify: false`, no notice is mailed at the seed. Their lots are under the margin scheme
 * (the demo's default), so the lines of a lot name it (`lotId`) and hold the premium's VAT inside, never on its own:
 * the premium at the house's 26 % (COSTS.md's rules) plus 21 % VAT; storage, a service of the house, shows its VAT.
 */
export function* demoInvoicesRecords(now: Date): Generator<{ kind: string } & Record<string, unknown>> {
  const day = 86_400_000;
  const at = (days: number) => new Date(Math.floor(now.getTime() / 1000) * 1000 + days * day).toISOString();
  yield {
    kind: 'priceList',
    tenant: 'demo',
    currency: 'EUR',
    paymentTermDays: 14,
    items: {
      'printed-catalogue': { amount: 1500, description: { en: 'Printed catalogue', sv: 'Tryckt katalog', de: 'Gedruckter Katalog' } },
      'condition-report': { amount: 2500, description: { en: 'Condition report', sv: 'Konditionsrapport', de: 'Zustandsbericht' } },
    },
  };
  yield {
    kind: 'priceList',
    tenant: 'demo2',
    currency: 'SEK',
    paymentTermDays: 10,
    items: {
      'printed-catalogue': { amount: 15000, description: { en: 'Printed catalogue' } },
      'condition-report': { amount: 25000, description: { en: 'Condition report' } },
    },
  };
  // Auction 4 of `demo` closed 30 days ago: the member's purchases, settled; then a late lot, not yet paid.
  yield {
    kind: 'invoice',
    notify: false,
    tenant: 'demo',
    invoiceId: 1,
    memberId: 1,
    auctionId: 4,
    issuedAt: at(-29),
    dueAt: at(-15),
    currency: 'EUR',
    lines: [
      { description: 'Lot 12, hammer price', amount: 80000, vatRate: 0, lotId: 862 },
      { description: "Lot 12, buyer's premium 26 % (VAT included)", amount: 20800 + 4368, vatRate: 0, lotId: 862 },
    ],
  };
  yield { kind: 'invoicePaid', tenant: 'demo', invoiceId: 1, paidAt: at(-20) };
  yield {
    kind: 'invoice',
    notify: false,
    tenant: 'demo',
    invoiceId: 2,
    memberId: 1,
    auctionId: 4,
    issuedAt: at(-2),
    dueAt: at(12),
    currency: 'EUR',
    lines: [
      { description: 'Lot 57, hammer price', amount: 45000, vatRate: 0, lotId: 907 },
      { description: "Lot 57, buyer's premium 26 % (VAT included)", amount: 11700 + 2457, vatRate: 0, lotId: 907 },
      { description: 'Storage, 10 days', amount: 1250, vatRate: 21 },
    ],
  };
  yield {
    kind: 'invoice',
    notify: false,
    tenant: 'demo2',
    invoiceId: 1,
    memberId: 1,
    auctionId: 1,
    issuedAt: at(-1),
    dueAt: at(9),
    currency: 'SEK',
    lines: [
      { description: 'Lot 3, hammer price', amount: 200000, vatRate: 0, lotId: 3 },
      { description: "Lot 3, buyer's premium 25 % (VAT included)", amount: 50000 + 12500, vatRate: 0, lotId: 3 },
    ],
  };
}
