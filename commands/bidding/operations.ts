// POST /v1/me/bids, placing or raising a maximum bid: its route, schemas and documentation, declared once for
// routing, validation and the OpenAPI document; the work is placeMaxBid's (handlers.ts).
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { MAX_BID_AMOUNT } from './rules.ts';
import { placeMaxBid } from './handlers.ts';
import { lotRegistrationReasons } from '../registrations/rules.ts';
import { costEstimateSchema } from '../costs/dto.ts';

const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const placedBidSchema = z
  .object({
    BidId: z.string().uuid().max(36).openapi({ description: 'The id of this maximum bid.' }),
    LotId: z.number().int().min(1).max(2147483647),
    MaxAmount: amount.openapi({ description: "The caller's maximum now (minor units)." }),
    CurrentBid: amount.nullable().openapi({ description: "The lot's current (public) bid after this one." }),
    Currency: z.string().length(3),
    Leading: z.boolean().openapi({ description: 'Whether the caller leads now (a higher maximum of another bidder outbids at once).' }),
    BidCount: z.number().int().min(0).max(2147483647),
    EndTime: z.string().max(30).openapi({ format: 'date-time', description: 'Moved by a bid in the last minutes (soft close).' }),
    MinimumNextBid: amount,
    ReserveMet: z.boolean().nullable().openapi({ description: 'null when the lot has no reserve.' }),
    // A union with null (`.nullable()` of a shared schema would lose the null in the document and the client).
    CostEstimate: z.union([costEstimateSchema, z.null()]).openapi({
      description:
        "What winning at `MaxAmount` costs all in, as `GET /v1/lots/{id}/cost-estimate` answers it for the `timed` channel and the member's own country (the profile's delivery country, else its country) and VAT check; null when the house publishes no cost rules or the profile names no country.",
    }),
  })
  .openapi('PlacedBid');

export const placeBid = defineOperation({
  route: { number: 58, operationId: 'placeBid', group: 'Timed bidding', method: 'post', path: '/v1/me/bids', auth: 'member' },
  docs: {
    summary: 'Place or raise a maximum bid on a lot of a timed auction',
    description:
      "The service bids for the caller up to `MaxAmount` (proxy bidding): the leader is the highest maximum (equal maxima: the earlier), and `CurrentBid` the lowest amount that beats every other maximum by one increment, raised to the reserve once the leader's maximum reaches it. " +
      '`MaxAmount` is in minor units, at least `MinimumNextBid` (else `400` with the extension `minimumNextBid`), at most 1,000,000,000; a leader may only raise their own maximum. Bids are binding. ' +
      'The caller must be allowed to bid (`GET /v1/me/lots/{lotId}/registration`): otherwise `403` with the extension `reason`. An auction that is not `timed`, or a lot whose `EndTime` has passed, is `409`. ' +
      "A bid that changes `CurrentBid` within the house's extension window before `EndTime` moves `EndTime` to the bid's time plus the window. " +
      '`Idempotency-Key`: the same key and body again answers the first answer and places nothing; another body is `422`. ' +
      "`CostEstimate` is what winning at the new maximum costs all in (COSTS.md), for a front end's confirmation; null when the house publishes no cost rules or the member's profile names no country.",
    errors: [403, 404, 409, 422],
    problems: [
      'bid-too-low',
      'leader-must-raise',
      ...lotRegistrationReasons,
      'bidding-ended',
      'auction-not-timed',
      'idempotency-key-in-use',
      'idempotency-key-reused',
    ],
    examples: {
      body: { LotId: 1001, MaxAmount: 25000 },
      response: {
        BidId: '7d9f2c1e-3b4a-4c5d-8e6f-a7b8c9d0e1f2',
        LotId: 1001,
        MaxAmount: 25000,
        CurrentBid: 12500,
        Currency: 'EUR',
        Leading: true,
        BidCount: 4,
        EndTime: '2026-12-01T18:00:00.000Z',
        MinimumNextBid: 13000,
        ReserveMet: false,
        CostEstimate: {
          LotId: 1001,
          Currency: 'EUR',
          Amount: 25000,
          Country: 'DE',
          Buyer: 'private',
          VatScheme: 'margin',
          Channel: 'timed',
          Lines: [
            { Code: 'hammer', Label: 'Hammer price', Amount: 25000, Vat: 'none', Estimate: false },
            {
              Code: 'premium',
              Label: "Buyer's premium 26 % (VAT included)",
              Amount: 7865,
              Vat: 'included',
              Estimate: false,
              Base: 25000,
              RatePpm: 260000,
              Bands: [{ From: 0, RatePpm: 260000, Portion: 25000 }],
              Net: 6500,
              VatRatePpm: 210000,
            },
            {
              Code: 'shipping',
              Label: 'Shipping, parcel M, EU',
              Amount: 3872,
              Vat: 'included',
              Estimate: false,
              Net: 3200,
              VatRatePpm: 210000,
            },
          ],
          Total: 36737,
          TotalRange: null,
          TotalIfConditionsUnmet: null,
          Assumptions: ['margin-scheme'],
          NotIncluded: ['payment-surcharges', 'storage'],
          RulesVersion: '2026-12-01',
          Display: null,
          Disclaimer: 'An estimate under the conditions of sale: the invoice decides.',
        },
      },
    },
  },
  input: {
    idempotencyKey: true,
    body: z
      .object({
        LotId: z.number().int().min(1).max(2147483647),
        MaxAmount: z.number().int().min(1).max(MAX_BID_AMOUNT).openapi({ description: "Minor units of the lot's currency." }),
      })
      .openapi('PlaceBidRequest'),
  },
  output: { response: placedBidSchema },
  handler: ({ body, idempotencyKey }, ctx) => placeMaxBid(ctx, body, idempotencyKey),
});

export const biddingCommandOperations = [placeBid];
