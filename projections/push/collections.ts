import { createHash } from 'node:crypto';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

/** The push subscriptions of members, by subscription id; a removed one is deleted. */
export const PUSH_SUBSCRIPTIONS = 'push_subscriptions';

export interface PushSubscriptionDoc extends Doc {
  Id: string;
  MemberId: number;
  /** The push service's URL of this browser (private, as its keys). */
  Endpoint: string;
  /** SHA-256 of the endpoint, hex: finds a subscription by its endpoint (private). */
  EndpointHash: string;
  EndpointHost: string;
  P256dh: string;
  Auth: string;
  ExpirationTime: string | null;
  /** The language the member asked its pushes in; null: the member's. */
  Language: string | null;
  Created: string;
  Updated: string;
}

/** What EndpointHash holds for an endpoint. */
export const endpointHash = (endpoint: string) => createHash('sha256').update(endpoint, 'utf8').digest('hex');

export const pushSubscriptions = (db: TenantScope) => db.collection<PushSubscriptionDoc>(PUSH_SUBSCRIPTIONS);

/** How many member ids one look-up names at most (a lot's close may tell thousands). */
const MEMBERS_PER_READ = 500;

/** The subscriptions of these members, each member's in the order they were made. */
export async function subscriptionsOfMembers(db: TenantScope, memberIds: readonly number[]): Promise<PushSubscriptionDoc[]> {
  const found: PushSubscriptionDoc[] = [];
  const ids = [...new Set(memberIds)];
  for (let i = 0; i < ids.length; i += MEMBERS_PER_READ)
    found.push(
      ...(await pushSubscriptions(db).find(
        { MemberId: { $in: ids.slice(i, i + MEMBERS_PER_READ) } },
        {
          sort: [
            ['MemberId', 1],
            ['Created', 1],
          ],
        },
      )),
    );
  return found;
}
