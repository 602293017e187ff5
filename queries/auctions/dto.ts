// The auction answer shape: its schema, the OpenAPI example and the mapper from the catalogue's auction
// document. Used by the auctions and consignments queries.
import { z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import { AUCTION_STATUSES as STATUSES, type AuctionDoc, auctionStatus } from '../../projections/catalogue/index.ts';

export const auctionSchema = z
  .object({
    Id: z.number().int().min(1).max(2147483647),
    AuctionTypeId: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .openapi({ description: "The auction house's own kind of auction (lots and latest bids filter on it)." }),
    Title: z.string().max(500).openapi({ description: 'In the negotiated language (`Content-Language`).' }),
    Description: z.string().max(20000),
    Status: z.enum(STATUSES).openapi({ description: 'upcoming before StartTime, current until EndTime, closed after.' }),
    StartTime: z.string().max(30).openapi({ format: 'date-time' }),
    EndTime: z.string().max(30).openapi({ format: 'date-time' }),
    Currency: z
      .string()
      .length(3)
      .regex(/^[A-Z]{3}$/)
      .openapi({ description: 'ISO 4217: the currency of every amount of its lots.' }),
    RequiresTermsAcceptance: z
      .boolean()
      .openapi({ description: "A bidder must accept the auction's terms (`POST /v1/auctions/{id}/terms-acceptance`) before bidding." }),
    IsLive: z.boolean(),
    LotCount: z.number().int().min(0).max(2147483647).openapi({ description: 'Its lots, open and closed.' }),
    BiddingMode: z
      .enum(['external', 'timed'])
      .openapi({ description: '`timed`: bids are placed here (`POST /v1/me/bids`); `external`: the house takes them elsewhere.' }),
  })
  .openapi('Auction');

/** An auction as the examples of the OpenAPI document show it. */
export const auctionExample = {
  Id: 1,
  AuctionTypeId: 1,
  Title: 'Spring Design Sale',
  Description: 'Scandinavian furniture, glass and ceramics from 1920 to 1980.',
  Status: 'current' as const,
  StartTime: '2026-11-20T10:00:00.000Z',
  EndTime: '2026-12-01T18:00:00.000Z',
  Currency: 'EUR',
  RequiresTermsAcceptance: false,
  IsLive: false,
  LotCount: 400,
  BiddingMode: 'external' as const,
};

export function toAuctionDto(doc: AuctionDoc, language: string, fallback: string, nowIso: string): z.infer<typeof auctionSchema> {
  const text = pick(doc.Texts, language, fallback);
  return {
    Id: doc.Id,
    AuctionTypeId: doc.AuctionType,
    Title: text?.Title ?? '',
    Description: text?.Description ?? '',
    Status: auctionStatus(doc, nowIso),
    StartTime: doc.StartTime,
    EndTime: doc.EndTime,
    Currency: doc.Currency,
    RequiresTermsAcceptance: doc.RequiresTermsAcceptance,
    IsLive: doc.IsLive,
    LotCount: doc.LotCount,
    BiddingMode: doc.BiddingMode ?? 'external',
  };
}
