import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import type { ShippingMethod } from '../../commands/invoices/events.ts';
import type { VatScheme } from '../../commands/costs/events.ts';

/** Members' invoices, and the house's price list of costs. */
export const INVOICES = 'invoices';
export const PRICE_LISTS = 'price_lists';
/** The one price-list document of a tenant. */
export const PRICE_LIST_ID = 'current';

export interface InvoiceLineDoc {
  Description: string;
  Amount: number;
  VatRate: number;
  VatAmount: number;
  /** The lot the line is for and its VAT scheme (absent on lines of no lot). */
  LotId?: number;
  VatScheme?: VatScheme;
}

export interface ShippingDoc {
  Method: ShippingMethod;
  Name: string | null;
  Address: string | null;
  ZipCode: string | null;
  City: string | null;
  Country: string | null;
  ChosenAt: string;
}

export interface InvoiceDoc extends Doc {
  Id: number;
  Number: number;
  MemberId: number;
  AuctionId: number | null;
  /** The price list's cost type of an invoice the member raised; null for the house's invoices. */
  CostType: string | null;
  /** Raised by a member charged no VAT (reverse charge). */
  VatFree: boolean;
  Status: 'unpaid' | 'paid';
  IssuedAt: string;
  DueAt: string;
  PaidAt: string | null;
  Currency: string;
  Lines: InvoiceLineDoc[];
  Subtotal: number;
  VatTotal: number;
  Total: number;
  Shipping: ShippingDoc | null;
  /** Position of the last event that changed the invoice: its printed PDF is kept per version. */
  Version: number;
}

export interface PriceListDoc extends Doc {
  Currency: string;
  PaymentTermDays: number;
  Items: Array<{ CostType: string; Amount: number; Description: Record<string, string> }>;
}

export const invoices = (db: TenantScope) => db.collection<InvoiceDoc>(INVOICES);
export const priceLists = (db: TenantScope) => db.collection<PriceListDoc>(PRICE_LISTS);
