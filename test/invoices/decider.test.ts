import { expect } from 'chai';
import { invoiceNoticeDecider, invoiceRegisterDecider, priceListDecider, type InvoiceCommand } from '../../commands/invoices/decide.ts';
import { vatOf, type InvoicesEvent, type ShippingChoice } from '../../commands/invoices/events.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const tenant = 'demo';

const houseData = (invoiceId: number, number: number | null, memberId = 1) => ({
  tenant,
  invoiceId,
  number,
  memberId,
  auctionId: 4,
  issuedAt: '2026-11-01T09:00:00.000Z',
  dueAt: '2026-11-15T09:00:00.000Z',
  currency: 'EUR',
  lines: [
    { description: 'Lot 57, hammer price', amount: 45000, vatRate: 0, vatAmount: 0 },
    { description: "Buyer's premium", amount: 11250, vatRate: 21, vatAmount: 2363 },
  ],
});
const issued = (invoiceId: number, number: number, memberId = 1): InvoicesEvent => ({
  type: 'InvoiceIssued',
  data: { ...houseData(invoiceId, number, memberId), number },
});
const issue = (invoiceId: number, number: number | null, memberId = 1): InvoiceCommand => ({
  type: 'IssueInvoice',
  data: houseData(invoiceId, number, memberId),
});

const raise = (o: Partial<Extract<InvoiceCommand, { type: 'RaiseCostInvoice' }>> = {}): InvoiceCommand => ({
  type: 'RaiseCostInvoice',
  tenant,
  memberId: 1,
  auctionId: 1,
  auctionExists: true,
  costType: 'printed-catalogue',
  price: { amount: 1500, description: 'Printed catalogue' },
  currency: 'EUR',
  paymentTermDays: 14,
  vatRate: 21,
  vatFree: false,
  at,
  ...o,
});
const raised = (
  invoiceId: number,
  number: number,
  o: { memberId?: number; auctionId?: number; costType?: string; vatFree?: boolean } = {},
): InvoicesEvent => ({
  type: 'CostInvoiceRaised',
  data: {
    tenant,
    invoiceId,
    number,
    memberId: o.memberId ?? 1,
    auctionId: o.auctionId ?? 1,
    issuedAt: at,
    dueAt: '2026-12-06T10:00:00.000Z',
    currency: 'EUR',
    lines: [{ description: 'Printed catalogue', amount: 1500, vatRate: o.vatFree ? 0 : 21, vatAmount: o.vatFree ? 0 : 315 }],
    costType: o.costType ?? 'printed-catalogue',
    vatFree: o.vatFree ?? false,
  },
});
const paid = (invoiceId: number, memberId = 1): InvoicesEvent => ({
  type: 'InvoicePaymentReceived',
  data: { tenant, invoiceId, memberId, paidAt: at },
});
const post: ShippingChoice = {
  method: 'post',
  name: 'Demo Bidder',
  address: 'Keizersgracht 1',
  zipCode: '1015 CJ',
  city: 'Amsterdam',
  country: 'NL',
};
const choose = (invoiceId: number, shipping: ShippingChoice = post, memberId = 1): InvoiceCommand => ({
  type: 'ChooseShipping',
  tenant,
  memberId,
  invoiceId,
  shipping,
  at,
});
const chosen = (invoiceId: number, shipping: ShippingChoice = post, memberId = 1): InvoicesEvent => ({
  type: 'InvoiceShippingSelected',
  data: { tenant, invoiceId, memberId, ...shipping, at },
});

describe('invoice register decider', () => {
  describe('VAT of a line', () => {
    it('is amount × rate / 100 rounded half up to a whole minor unit', () => {
      expect(vatOf(1500, 21)).to.equal(315);
      expect(vatOf(11250, 21)).to.equal(2363); // 2362.5
      expect(vatOf(1250, 21)).to.equal(263); // 262.5
      expect(vatOf(1249, 21)).to.equal(262); // 262.29
      expect(vatOf(15000, 25)).to.equal(3750);
      expect(vatOf(999, 5.5)).to.equal(55); // 54.945
      expect(vatOf(1000, 0)).to.equal(0);
      expect(vatOf(1_000_000_000_000, 100)).to.equal(1_000_000_000_000);
    });
  });

  describe('a house invoice (intake)', () => {
    it('is issued with the number the house gave it', () => {
      spec(invoiceRegisterDecider)
        .given([])
        .when(issue(1, 7))
        .then([issued(1, 7)]);
    });

    it('is given the next number of the register when the house gave none', () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1), raised(2, 2)])
        .when(issue(5, null))
        .then([issued(5, 3)]);
    });

    it('appends nothing when the same invoice is imported again, with or without its number', () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1)])
        .when(issue(1, 1))
        .thenNothingHappened();
      spec(invoiceRegisterDecider)
        .given([issued(1, 1)])
        .when(issue(1, null))
        .thenNothingHappened();
    });

    it('refuses to change an issued invoice', () => {
      const changed: InvoiceCommand = { type: 'IssueInvoice', data: { ...houseData(1, 1), dueAt: '2026-12-01T09:00:00.000Z' } };
      spec(invoiceRegisterDecider)
        .given([issued(1, 1)])
        .when(changed)
        .thenThrows(ConflictError, /already issued/);
      spec(invoiceRegisterDecider)
        .given([raised(1, 1)])
        .when(issue(1, 1))
        .thenThrows(ConflictError);
    });

    it('refuses a number another invoice has', () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1)])
        .when(issue(2, 1))
        .thenThrows(ConflictError, /number 1/);
    });
  });

  describe('raising an invoice for a cost', () => {
    it('raises the next id and number with the price list amount plus VAT at the house rate, due after the payment term', () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1), issued(2, 2)])
        .when(raise())
        .then([raised(3, 3)]);
    });

    it('numbers after the highest number and id, whatever order they came in', () => {
      spec(invoiceRegisterDecider)
        .given([issued(9, 4), issued(2, 8)])
        .when(raise())
        .then([raised(10, 9)]);
    });

    it('charges a VAT-free member no VAT', () => {
      spec(invoiceRegisterDecider)
        .given([])
        .when(raise({ vatFree: true }))
        .then([raised(1, 1, { vatFree: true })]);
    });

    it('answers the unpaid invoice of the same cost and auction instead of raising a second one', () => {
      spec(invoiceRegisterDecider)
        .given([raised(1, 1)])
        .when(raise())
        .thenNothingHappened();
    });

    it('raises a new one for another auction, another cost or another member', () => {
      spec(invoiceRegisterDecider)
        .given([raised(1, 1)])
        .when(raise({ auctionId: 2 }))
        .then([raised(2, 2, { auctionId: 2 })]);
      spec(invoiceRegisterDecider)
        .given([raised(1, 1)])
        .when(raise({ memberId: 2 }))
        .then([raised(2, 2, { memberId: 2 })]);
      const report = raise({ costType: 'condition-report', price: { amount: 2500, description: 'Condition report' } });
      const [event] = invoiceRegisterDecider.decide(
        report,
        [raised(1, 1)].reduce(invoiceRegisterDecider.evolve, invoiceRegisterDecider.initialState()),
      );
      expect(event.type).to.equal('CostInvoiceRaised');
      expect(event.data).to.include({ invoiceId: 2, number: 2, costType: 'condition-report' });
    });

    it('raises a new one once the previous one is paid', () => {
      spec(invoiceRegisterDecider)
        .given([raised(1, 1), paid(1)])
        .when(raise())
        .then([raised(2, 2)]);
    });

    it('refuses a cost type the price list does not have (400 naming body.CostType)', () => {
      spec(invoiceRegisterDecider)
        .given([])
        .when(raise({ price: null }))
        .thenThrows(ValidationError, /price list/);
    });

    it('refuses an auction that does not exist', () => {
      spec(invoiceRegisterDecider)
        .given([])
        .when(raise({ auctionExists: false }))
        .thenThrows(NotFoundError, /Auction 1/);
    });
  });

  describe('payment (intake)', () => {
    it('marks an unpaid invoice paid, naming its member', () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1, 7)])
        .when({ type: 'MarkInvoicePaid', tenant, invoiceId: 1, paidAt: at })
        .then([paid(1, 7)]);
    });

    it('appends nothing for an invoice already paid', () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1), paid(1)])
        .when({ type: 'MarkInvoicePaid', tenant, invoiceId: 1, paidAt: '2026-11-30T00:00:00.000Z' })
        .thenNothingHappened();
    });

    it('refuses an invoice that does not exist', () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1)])
        .when({ type: 'MarkInvoicePaid', tenant, invoiceId: 2, paidAt: at })
        .thenThrows(NotFoundError);
    });
  });

  describe('shipping', () => {
    it("records the member's choice for an unpaid invoice", () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1)])
        .when(choose(1))
        .then([chosen(1)]);
    });

    it('replaces an earlier choice, and appends nothing for the same one', () => {
      const pickup: ShippingChoice = { method: 'pickup', name: null, address: null, zipCode: null, city: null, country: null };
      spec(invoiceRegisterDecider)
        .given([issued(1, 1), chosen(1)])
        .when(choose(1, pickup))
        .then([chosen(1, pickup)]);
      spec(invoiceRegisterDecider)
        .given([issued(1, 1), chosen(1)])
        .when(choose(1))
        .thenNothingHappened();
    });

    it('refuses a paid invoice (409)', () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1), paid(1)])
        .when(choose(1))
        .thenThrows(ConflictError, /paid/);
    });

    it("answers another member's invoice, or an unknown one, as not found", () => {
      spec(invoiceRegisterDecider)
        .given([issued(1, 1, 2)])
        .when(choose(1))
        .thenThrows(NotFoundError);
      spec(invoiceRegisterDecider).given([]).when(choose(1)).thenThrows(NotFoundError);
    });
  });
});

describe('invoice notice decider', () => {
  const record = (invoiceId: number) => ({
    type: 'RecordNotice' as const,
    tenant,
    invoiceId,
    messageId: `invoice-notice-demo-${invoiceId}`,
    at,
  });
  const noticed = (invoiceId: number, memberId = 1): InvoicesEvent => ({
    type: 'InvoiceNoticeDispatched',
    data: { tenant, invoiceId, memberId, messageId: `invoice-notice-demo-${invoiceId}`, at },
  });

  it("records that a house invoice's notice went out, naming its member", () => {
    spec(invoiceNoticeDecider)
      .given([issued(1, 1, 7)])
      .when(record(1))
      .then([noticed(1, 7)]);
  });

  it('records it once, and never for an invoice a member raised or one that does not exist', () => {
    spec(invoiceNoticeDecider)
      .given([issued(1, 1), noticed(1)])
      .when(record(1))
      .thenNothingHappened();
    spec(invoiceNoticeDecider)
      .given([raised(1, 1)])
      .when(record(1))
      .thenNothingHappened();
    spec(invoiceNoticeDecider).given([]).when(record(1)).thenNothingHappened();
  });

  it('answers a look-up with the invoice as it stands, appending nothing', () => {
    const state = [issued(1, 1), paid(1), noticed(1)].reduce(
      (s, e) => invoiceNoticeDecider.evolve(s, e),
      invoiceNoticeDecider.initialState(),
    );
    expect(invoiceNoticeDecider.decide({ type: 'LookUpNotice', invoiceId: 1 }, state)).to.deep.equal([]);
    expect(invoiceNoticeDecider.view!(state, { type: 'LookUpNotice', invoiceId: 1 })).to.deep.include({ status: 'paid', noticed: true });
    expect(invoiceNoticeDecider.view!(state, { type: 'LookUpNotice', invoiceId: 2 })).to.equal(null);
  });
});

describe('price list decider', () => {
  const data = {
    tenant,
    currency: 'EUR',
    paymentTermDays: 14,
    items: [{ costType: 'printed-catalogue', amount: 1500, description: { en: 'Printed catalogue' } }],
    at,
  };

  it('publishes a price list', () => {
    spec(priceListDecider)
      .given([])
      .when({ type: 'PublishPriceList', data })
      .then([{ type: 'PriceListPublished', data }]);
  });

  it('appends nothing for the same price list sent again later', () => {
    spec(priceListDecider)
      .given([{ type: 'PriceListPublished', data }])
      .when({ type: 'PublishPriceList', data: { ...data, at: '2026-11-23T00:00:00.000Z' } })
      .thenNothingHappened();
  });

  it('replaces it with a changed one', () => {
    const changed = { ...data, items: [{ ...data.items[0], amount: 1800 }] };
    spec(priceListDecider)
      .given([{ type: 'PriceListPublished', data }])
      .when({ type: 'PublishPriceList', data: changed })
      .then([{ type: 'PriceListPublished', data: changed }]);
  });
});
