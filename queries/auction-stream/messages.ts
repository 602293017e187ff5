// The auction stream's event types with the JSON of their `data:` (API.md "Timed bidding"), as hub.ts builds
// them: for the OpenAPI document and the typed client (OutputSpec.streamEvents).
import { z } from '../../src/http/schemas.ts';
import { streamEndEvent } from '../../src/http/credential-watch.ts';

const lotId = z.number().int().min(1).max(2147483647);
const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const time = (description: string) => z.string().max(30).openapi({ format: 'date-time', description });

export const auctionStreamEvents = {
  bid: z
    .object({
      LotId: lotId,
      CurrentBid: amount.openapi({ description: 'The new current bid (minor units).' }),
      Currency: z
        .string()
        .length(3)
        .regex(/^[A-Z]{3}$/)
        .nullable(),
      BidCount: z.number().int().min(0).max(2147483647).nullable(),
      MinimumNextBid: amount.nullable().openapi({ description: 'The least next bid; null when the lot is not known yet.' }),
      ReserveMet: z.boolean().nullable().openapi({ description: 'Null when the lot has no reserve.' }),
      EndTime: time('When bidding ends (moved by soft close).').nullable(),
      PlacedAt: time('When the bid was placed.'),
    })
    .openapi('AuctionStreamBid', { description: 'A public bid: the current bid of a lot changed.' }),
  extended: z
    .object({ LotId: lotId, EndTime: time('The new end time.') })
    .openapi('AuctionStreamExtended', { description: "A bid in the last minutes moved the lot's end time (soft close)." }),
  closed: z
    .object({
      LotId: lotId,
      Sold: z.boolean(),
      HammerPrice: amount.nullable().openapi({ description: 'The price it sold for; null when unsold.' }),
    })
    .openapi('AuctionStreamClosed', { description: 'The lot closed, sold or not.' }),
  live: z
    .object({ IsLive: z.boolean(), CurrentLotId: lotId.nullable() })
    .openapi('AuctionStreamLive', { description: 'The live auction started or stopped, or moved to another lot.' }),
  reset: z.object({ Reason: z.string().max(200) }).openapi('AuctionStreamReset', {
    description: 'The `Last-Event-ID` is too old to resume from: read the lots again; the stream goes on from here.',
  }),
  end: streamEndEvent,
} satisfies Record<string, z.ZodType>;
