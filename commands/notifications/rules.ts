import type { EventLog } from '../../src/ports/event-log.ts';
import { memberNotificationsStreamId, NotificationMailsStopped, notificationsEvents } from './events.ts';

/**
 * Whether a member stopped the "outbid" mails of an auction with an unsubscribe link (NotificationMailsStopped on
 * the member's notifications stream): read from the stream, so a mail job right after the unsubscribe sees it.
 */
export async function outbidMailsStopped(log: EventLog, tenant: string, memberId: number, auctionId: number): Promise<boolean> {
  for (const recorded of await log.readStream(memberNotificationsStreamId(tenant, memberId))) {
    if (recorded.type !== NotificationMailsStopped.type) continue;
    const event = notificationsEvents.read(recorded);
    if (event.type === 'NotificationMailsStopped' && event.data.kind === 'outbid' && event.data.auctionId === auctionId) return true;
  }
  return false;
}
