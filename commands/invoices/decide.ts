import type { Decider } from '../../src/decider.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import { assertNever } from '../../src/assert-never.ts';
import { invoicesEvents, vatOf, type InvoiceIssuedData, type InvoicesEvent, type PriceListData, type ShippingChoice } from './events.ts';

const INT32_MAX = 2147483647;

/** What the register remembers of one invoice. */
export interface RegisteredInvoice {
  memberId: number;
  number: number;
  auctionId: number | null;
  /** The price list's cost type of an invoice a member raised; null for the house's invoices. */
  costType: string | null;
  status: 'unpaid' | 'paid';
  shipping: ShippingChoice | null;
  /** The content of a house invoice as issued (to tell a re-import from a change). */
  issued: InvoiceIssuedData | null;
  /** Its notice was handed to the mail gateway (InvoiceNoticeDispatched): it is never sent again. */
  noticed: boolean;
}

/** A tenant's invoice register: every invoice of the tenant, the numbers and ids taken. */
export interface InvoiceRegister {
  lastNumber: number;
  lastId: number;
  invoices: Map<number, RegisteredInvoice>;
  numbers: Set<number>;
  /** Unpaid invoices members raised, by `memberId:costType:auctionId`: raising one again answers it. */
  openCosts: Map<string, number>;
}

const costKey = (memberId: number, costType: string, auctionId: number | null) => `${memberId}:${costType}:${auctionId}`;

/** A house invoice as the back office sends it: `number` null lets the register number it. */
export type IssueInvoiceData = Omit<InvoiceIssuedData, 'number'> & { number: number | null };

export type InvoiceCommand =
  | { type: 'IssueInvoice'; data: IssueInvoiceData }
  | {
      type: 'RaiseCostInvoice';
      tenant: string;
      memberId: number;
      auctionId: number;
      /** Lookups: does the auction exist in the tenant; the price list's item of the cost type (null: unknown). */
      auctionExists: boolean;
      costType: string;
      price: { amount: number; description: string } | null;
      currency: string;
      paymentTermDays: number;
      /** The house's VAT rate in percent. */
      vatRate: number;
      /** The member is charged no VAT (reverse charge), as their profile says. */
      vatFree: boolean;
      at: string;
    }
  | { type: 'MarkInvoicePaid'; tenant: string; invoiceId: number; paidAt: string }
  | { type: 'ChooseShipping'; tenant: string; memberId: number; invoiceId: number; shipping: ShippingChoice; at: string };

/** JSON with object keys sorted, so equal content compares equal whatever order its keys were written in. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The same invoice (whether its member is notified is no part of it). */
const sameIssue = (a: InvoiceIssuedData, b: IssueInvoiceData) => {
  const { number: _n, notify: _a, ...left } = a;
  const { number, notify: _b, ...right } = b;
  return (number === null || number === a.number) && canonical(left) === canonical(right);
};

const sameShipping = (a: ShippingChoice | null, b: ShippingChoice) => a !== null && canonical(a) === canonical(b);

/** The lines of a cost invoice: the price list's amount, VAT at the house's rate (0 for a VAT-free member). */
export function costLines(price: { amount: number; description: string }, vatRate: number, vatFree: boolean) {
  const rate = vatFree ? 0 : vatRate;
  return [{ description: price.description, amount: price.amount, vatRate: rate, vatAmount: vatOf(price.amount, rate) }];
}

const DAY_MS = 86_400_000;

export const invoiceRegisterDecider: Decider<InvoiceRegister, InvoiceCommand, InvoicesEvent> = {
  events: invoicesEvents,
  initialState: () => ({ lastNumber: 0, lastId: 0, invoices: new Map(), numbers: new Set(), openCosts: new Map() }),
  // In place: the runner gives every stream its own state.
  evolve: (state, event) => {
    switch (event.type) {
      case 'InvoiceIssued':
      case 'CostInvoiceRaised': {
        const d = event.data;
        const costType = event.type === 'CostInvoiceRaised' ? event.data.costType : null;
        state.invoices.set(d.invoiceId, {
          memberId: d.memberId,
          number: d.number,
          auctionId: d.auctionId,
          costType,
          status: 'unpaid',
          shipping: null,
          issued: event.type === 'InvoiceIssued' ? event.data : null,
          noticed: false,
        });
        state.numbers.add(d.number);
        state.lastNumber = Math.max(state.lastNumber, d.number);
        state.lastId = Math.max(state.lastId, d.invoiceId);
        if (costType !== null) state.openCosts.set(costKey(d.memberId, costType, d.auctionId), d.invoiceId);
        return state;
      }
      case 'InvoicePaymentReceived': {
        const invoice = state.invoices.get(event.data.invoiceId);
        if (invoice) {
          invoice.status = 'paid';
          if (invoice.costType !== null) state.openCosts.delete(costKey(invoice.memberId, invoice.costType, invoice.auctionId));
        }
        return state;
      }
      case 'InvoiceShippingSelected': {
        const invoice = state.invoices.get(event.data.invoiceId);
        if (invoice) {
          const { tenant: _t, invoiceId: _i, memberId: _m, at: _a, ...shipping } = event.data;
          invoice.shipping = shipping;
        }
        return state;
      }
      case 'InvoiceNoticeDispatched': {
        const invoice = state.invoices.get(event.data.invoiceId);
        if (invoice) invoice.noticed = true;
        return state;
      }
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueInvoice': {
        const { data } = command;
        const existing = state.invoices.get(data.invoiceId);
        if (existing) {
          if (existing.issued && sameIssue(existing.issued, data)) return [];
          throw new ConflictError(
            'invoice-issued',
            `Invoice ${data.invoiceId} was already issued with other content; an issued invoice cannot be changed.`,
          );
        }
        if (data.number !== null && state.numbers.has(data.number))
          throw new ConflictError('invoice-number-taken', `Invoice number ${data.number} is taken by another invoice.`);
        const number = data.number ?? nextNumber(state);
        return [{ type: 'InvoiceIssued', data: { ...data, number } }];
      }
      case 'RaiseCostInvoice': {
        if (!command.price)
          throw new ValidationError(`The house's price list has no cost type ${JSON.stringify(command.costType)}.`, [
            { field: 'body.CostType', message: 'not a cost type of the price list' },
          ]);
        if (!command.auctionExists) throw new NotFoundError(`Auction ${command.auctionId} does not exist.`);
        const { tenant, memberId, auctionId, costType, currency, vatFree, at } = command;
        // Raised again while the first is unpaid (a double click, a retried request): the same invoice answers.
        if (state.openCosts.has(costKey(memberId, costType, auctionId))) return [];
        if (state.lastId >= INT32_MAX) throw new ConflictError('invoice-numbers-exhausted', 'The house has no invoice id left.');
        return [
          {
            type: 'CostInvoiceRaised',
            data: {
              tenant,
              invoiceId: state.lastId + 1,
              number: nextNumber(state),
              memberId,
              auctionId,
              issuedAt: at,
              dueAt: new Date(Date.parse(at) + command.paymentTermDays * DAY_MS).toISOString(),
              currency,
              lines: costLines(command.price, command.vatRate, vatFree),
              costType,
              vatFree,
            },
          },
        ];
      }
      case 'MarkInvoicePaid': {
        const invoice = state.invoices.get(command.invoiceId);
        if (!invoice) throw new NotFoundError(`Invoice ${command.invoiceId} does not exist.`);
        if (invoice.status === 'paid') return [];
        return [
          {
            type: 'InvoicePaymentReceived',
            data: { tenant: command.tenant, invoiceId: command.invoiceId, memberId: invoice.memberId, paidAt: command.paidAt },
          },
        ];
      }
      case 'ChooseShipping': {
        const invoice = state.invoices.get(command.invoiceId);
        if (!invoice || invoice.memberId !== command.memberId) throw new NotFoundError(`Invoice ${command.invoiceId} does not exist.`);
        if (invoice.status === 'paid')
          throw new ConflictError('invoice-paid', `Invoice ${command.invoiceId} is paid: its shipping can no longer change.`);
        if (sameShipping(invoice.shipping, command.shipping)) return [];
        const { tenant, invoiceId, memberId, at } = command;
        return [{ type: 'InvoiceShippingSelected', data: { tenant, invoiceId, memberId, ...command.shipping, at } }];
      }
      default:
        return assertNever(command);
    }
  },
};

function nextNumber(state: InvoiceRegister): number {
  if (state.lastNumber >= INT32_MAX) throw new ConflictError('invoice-numbers-exhausted', 'The house has no invoice number left.');
  return state.lastNumber + 1;
}

/** The notice of a house invoice: what the job needs to know of it, and the record that it went out. */
export type InvoiceNoticeCommand =
  { type: 'LookUpNotice'; invoiceId: number } | { type: 'RecordNotice'; tenant: string; invoiceId: number; messageId: string; at: string };

/** What the notice job reads of an invoice on the register (null: no such invoice). */
export type InvoiceNoticeView = Pick<RegisteredInvoice, 'issued' | 'status' | 'noticed'> | null;

/**
 * The notices of the house's invoices (InvoiceIssued), decided on the tenant's register: `LookUpNotice` appends
 * nothing and answers the invoice as it stands (issued content, paid or not, noticed or not); `RecordNotice`
 * records, once, that its notice went out. A separate decider from the register's own, so that the runner keeps
 * its folded state apart (the notice job reads only newer events of the register each time).
 */
export const invoiceNoticeDecider: Decider<InvoiceRegister, InvoiceNoticeCommand, InvoicesEvent, InvoiceNoticeView> = {
  events: invoicesEvents,
  initialState: invoiceRegisterDecider.initialState,
  evolve: invoiceRegisterDecider.evolve,
  decide: (command, state) => {
    switch (command.type) {
      case 'LookUpNotice':
        return [];
      case 'RecordNotice': {
        const invoice = state.invoices.get(command.invoiceId);
        // Recorded already (a retried job), or not a house invoice: nothing to record.
        if (!invoice?.issued || invoice.noticed) return [];
        const { tenant, invoiceId, messageId, at } = command;
        return [{ type: 'InvoiceNoticeDispatched', data: { tenant, invoiceId, memberId: invoice.memberId, messageId, at } }];
      }
      default:
        return assertNever(command);
    }
  },
  view: (state, command) => {
    const invoice = state.invoices.get(command.invoiceId);
    return invoice ? { issued: invoice.issued, status: invoice.status, noticed: invoice.noticed } : null;
  },
};

export type PriceListCommand = { type: 'PublishPriceList'; data: PriceListData };

/** The price list: publishing a different one replaces it; the same one again appends nothing. */
export const priceListDecider: Decider<PriceListData | null, PriceListCommand, InvoicesEvent> = {
  events: invoicesEvents,
  initialState: () => null,
  evolve: (state, event) => (event.type === 'PriceListPublished' ? event.data : state),
  decide: (command, state) => {
    switch (command.type) {
      case 'PublishPriceList': {
        if (state) {
          const { at: _a, ...current } = state;
          const { at: _b, ...next } = command.data;
          if (canonical(current) === canonical(next)) return [];
        }
        return [{ type: 'PriceListPublished', data: command.data }];
      }
      default:
        return assertNever(command.type);
    }
  },
};
