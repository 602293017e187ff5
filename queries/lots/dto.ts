import { z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import type { LotDoc } from '../../projections/catalogue/documents.ts';

export const lotSchema = z
  .object({
    Id: z.number().int(),
    AuctionId: z.number().int(),
    AuctionTypeId: z.number().int(),
    LotNumber: z.number().int(),
    Title: z.string(),
    Description: z.string(),
    CategoryId: z.number().int().nullable(),
    HotLot: z.boolean(),
    VatFree: z.boolean(),
    IsClosed: z.boolean(),
    EndTime: z.string().openapi({ format: 'date-time' }),
    Currency: z.string().openapi({ description: 'ISO 4217; every amount of the lot is in its minor units.' }),
    StartingPrice: z.number().int(),
    EstimateLow: z.number().int().nullable(),
    EstimateHigh: z.number().int().nullable(),
    CurrentBid: z.number().int().nullable(),
    BidCount: z.number().int(),
    Images: z.array(z.string()),
    Attributes: z.array(z.object({ Name: z.string(), Label: z.string(), Value: z.string() })),
    CombiId: z.number().int().nullable(),
    Created: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Lot');

export type LotDto = z.infer<typeof lotSchema>;

/** A lot in one language; catalogue data only (the consigner is never shown). */
export function toLotDto(doc: LotDoc, language: string, fallback: string, nowIso: string): LotDto {
  const text = pick(doc.Texts, language, fallback);
  return {
    Id: doc.Id,
    AuctionId: doc.AuctionId,
    AuctionTypeId: doc.AuctionType,
    LotNumber: doc.LotNumber,
    Title: text?.Title ?? '',
    Description: text?.Description ?? '',
    CategoryId: doc.CategoryId,
    HotLot: doc.HotLot,
    VatFree: doc.VatFree,
    IsClosed: doc.EndTime <= nowIso,
    EndTime: doc.EndTime,
    Currency: doc.Currency,
    StartingPrice: doc.StartingPrice,
    EstimateLow: doc.EstimateLow,
    EstimateHigh: doc.EstimateHigh,
    CurrentBid: doc.CurrentBid,
    BidCount: doc.BidCount,
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
