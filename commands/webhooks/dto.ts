// The webhook's answer shape, which the command operations (register) and the queries (list, one) share.
import { z } from '../../src/http/schemas.ts';

export const webhookStatus = z.enum(['active', 'disabled']);

/** A webhook as the back office reads it: never its secret. */
export const webhookSchema = z
  .object({
    Id: z.number().int().min(1).max(2147483647),
    Url: z.string().max(2000),
    Types: z.array(z.string().max(100)).max(200).nullable().openapi({ description: 'The event types it gets; null: all.' }),
    Description: z.string().max(500),
    Status: webhookStatus.openapi({ description: '`disabled` after the last retry of an event failed, until it is enabled.' }),
    CreatedAt: z.string().max(30).openapi({ format: 'date-time' }),
    LastDeliveredPosition: z
      .string()
      .max(100)
      .nullable()
      .openapi({ description: 'The `Position` of the last event it got (null: none yet).' }),
  })
  .openapi('Webhook');

export const webhookExample = {
  Id: 3,
  Url: 'https://erp.example-auctions.com/hooks/bidder',
  Types: ['MemberSignedUp', 'AuctionRegistrationRequested'],
  Description: 'ERP: new bidders and registrations',
  Status: 'active',
  CreatedAt: '2026-11-20T09:30:00.000Z',
  LastDeliveredPosition: 'HTH6bF7FdqN-CPwJg4Zi1w',
} as const;
