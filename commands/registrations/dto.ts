import { z } from '../../src/http/schemas.ts';
import { registrationStatuses } from './events.ts';
import { lotRegistrationReasons } from './rules.ts';

/** `{AuctionId, Status}`: what `POST` and `GET /v1/me/registrations/{auctionId}` answer. */
export const registrationSchema = z
  .object({
    AuctionId: z.number().int().min(1).max(2147483647),
    Status: z.enum(['none', ...registrationStatuses]).openapi({
      description:
        '`pending` until the house decides, `approved` (the member may bid once the auction is open), `rejected`; `none` when the member never asked (`GET /v1/me/registrations/{auctionId}` only).',
    }),
  })
  .openapi('AuctionRegistration');

export const registrationExample = { AuctionId: 1, Status: 'approved' as const };

export const lotRegistrationSchema = z
  .object({
    LotId: z.number().int().min(1).max(2147483647),
    MayBid: z.boolean().openapi({
      description:
        'True only when the lot is open, its auction current or live, and the caller approved for it (terms accepted where required).',
    }),
    Reason: z
      .enum(lotRegistrationReasons)
      .nullable()
      .openapi({
        description:
          'Why not, the first that applies in this order: `lot-closed` (its EndTime has passed), `auction-not-open` (the auction is upcoming or closed and not live), ' +
          '`terms-not-accepted` (the auction requires its terms and the caller has not accepted them), `not-registered`, `registration-pending`, `registration-rejected`. ' +
          'Null when `MayBid` is true.',
      }),
  })
  .openapi('LotRegistration');
