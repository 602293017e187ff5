import { z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import type { LotDoc } from '../../projections/catalogue/index.ts';
import { minimumNextBid, reserveMet, type IncrementRow } from '../../commands/bidding/rules.ts';
import { VAT_SCHEMES } from '../../commands/costs/events.ts';
import { lotVatScheme } from '../../commands/costs/rules.ts';

export const lotSchema = z
  .object({
    Id: z.number().int().min(1).max(2147483647),
    AuctionId: z.number().int().min(1).max(2147483647),
    AuctionTypeId: z.number().int().min(0).max(1000),
    LotNumber: z.number().int().min(0).max(2147483647),
    Title: z.string().max(500).openapi({ description: 'In the negotiated language (`Content-Language`).' }),
    Description: z.string().max(20000),
    CategoryId: z.number().int().min(1).max(2147483647).nullable(),
    HotLot: z.boolean(),
    VatFree: z.boolean(),
    VatScheme: z.enum(VAT_SCHEMES).openapi({
      description:
        "The VAT scheme the lot is sold under (COSTS.md): `margin` (the hammer carries no VAT, the VAT in the house's charges is never shown on its own), `normal` (VAT shown separately), `zero` (zero-rated: every `VatFree` lot) or `exempt`. `GET /v1/lots/{id}/cost-estimate` gives what it means for a bid.",
    }),
    IsClosed: z.boolean().openapi({ description: 'Bidding has ended (`EndTime` has passed).' }),
    EndTime: z
      .string()
      .max(30)
      .openapi({ format: 'date-time', description: 'When bidding ends (or ended, moved to the hammer time when it closed early).' }),
    Currency: z
      .string()
      .length(3)
      .regex(/^[A-Z]{3}$/)
      .openapi({ description: 'ISO 4217; every amount of the lot is in its minor units.' }),
    StartingPrice: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    EstimateLow: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(),
    EstimateHigh: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(),
    CurrentBid: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .nullable()
      .openapi({ description: 'The highest bid so far; null before the first bid.' }),
    BidCount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    BiddingMode: z
      .enum(['external', 'timed'])
      .openapi({ description: '`timed`: bids are placed here (`POST /v1/me/bids`); `external`: the house takes them elsewhere.' }),
    MinimumNextBid: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().openapi({
      description:
        "The least bid accepted next: the starting price before the first bid, then the current bid plus the house's increment at it; null once the lot is closed (`IsClosed`).",
    }),
    ReserveMet: z
      .boolean()
      .nullable()
      .openapi({ description: 'Whether the current bid reaches the reserve price (never shown); null when the lot has no reserve.' }),
    Images: z.array(z.string().max(2000).openapi({ description: 'The address of an image.' })).max(100),
    Attributes: z
      .array(
        z.object({
          Name: z
            .string()
            .max(64)
            .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
          Label: z.string().max(200),
          Value: z.string().max(1000),
        }),
      )
      .max(100),
    CombiId: z
      .number()
      .int()
      .min(1)
      .max(2147483647)
      .nullable()
      .openapi({ description: 'Lots sold together share it; null when the lot stands alone.' }),
    Created: z.string().max(30).openapi({ format: 'date-time' }),
  })
  .openapi('Lot');

/** A lot as the examples of the OpenAPI document show it. */
export const lotExample = {
  Id: 201,
  AuctionId: 1,
  AuctionTypeId: 1,
  LotNumber: 1,
  Title: 'Carved armchair, oak',
  Description: 'Swedish, around 1760. Carved oak with the original upholstery nails; some wear to the arms.',
  CategoryId: 12,
  HotLot: false,
  VatFree: false,
  VatScheme: 'margin' as const,
  IsClosed: false,
  EndTime: '2026-12-01T18:00:00.000Z',
  Currency: 'EUR',
  StartingPrice: 40000,
  EstimateLow: 60000,
  EstimateHigh: 80000,
  CurrentBid: 52000,
  BidCount: 3,
  BiddingMode: 'external' as const,
  MinimumNextBid: 53000,
  ReserveMet: null,
  Images: ['https://images.example.com/demo/lots/201-1.jpg'],
  Attributes: [{ Name: 'Material', Label: 'Material', Value: 'Oak' }],
  CombiId: null,
  Created: '2026-10-15T09:30:00.000Z',
};

export type LotDto = z.infer<typeof lotSchema>;

/** How a lot's auction takes bids, and the tenant's increment table (MinimumNextBid). */
export interface LotBidding {
  mode: 'external' | 'timed';
  increments: readonly IncrementRow[];
}

/** A lot in one language; catalogue data only (the consigner and the reserve are never shown). `auctionType` is its auction's type. */
export function toLotDto(
  doc: LotDoc,
  language: string,
  fallback: string,
  nowIso: string,
  auctionType: number,
  bidding: LotBidding,
): LotDto {
  const text = pick(doc.Texts, language, fallback);
  // Closed by its end time on the request's clock (a close moves EndTime to the closing time): the answer tells
  // when that happens by itself (ctx.changesAt at EndTime), so a cached one never shows a minimum after the end.
  const isClosed = doc.EndTime <= nowIso;
  return {
    Id: doc.Id,
    AuctionId: doc.AuctionId,
    AuctionTypeId: auctionType,
    LotNumber: doc.LotNumber,
    Title: text?.Title ?? '',
    Description: text?.Description ?? '',
    CategoryId: doc.CategoryId,
    HotLot: doc.HotLot,
    VatFree: doc.VatFree,
    VatScheme: doc.VatScheme ?? lotVatScheme(undefined, doc.VatFree),
    IsClosed: isClosed,
    EndTime: doc.EndTime,
    Currency: doc.Currency,
    StartingPrice: doc.StartingPrice,
    EstimateLow: doc.EstimateLow,
    EstimateHigh: doc.EstimateHigh,
    CurrentBid: doc.CurrentBid,
    BidCount: doc.BidCount,
    BiddingMode: bidding.mode,
    MinimumNextBid: isClosed ? null : minimumNextBid(bidding.increments, doc.StartingPrice, doc.CurrentBid),
    ReserveMet: reserveMet(doc.Reserve, doc.CurrentBid),
    Images: doc.Images,
    Attributes: doc.Attributes.map((a) => ({
      Name: a.Name,
      Label: pick(a.Labels, language, fallback) ?? a.Name,
      Value: pick(a.Values, language, fallback) ?? '',
    })),
    CombiId: doc.CombiId,
    Created: doc.Created,
  };
}
