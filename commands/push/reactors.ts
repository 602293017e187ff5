import { defineReactor, type Projection, type Reactor, type ReactorDeps } from '../../src/projector/projection.ts';
import { timedBiddingEvents } from '../lots/events.ts';
import { watchlistEvents } from '../watchlist/events.ts';
import { notificationsEvents } from '../notifications/events.ts';
import {
  closingPlanJob,
  outbidPushJob,
  PUSH_CLOSING,
  PUSH_OUTBID,
  PUSH_REMINDER,
  PUSH_SETTLED,
  reminderPushJob,
  settledPushJob,
  type OutbidPushData,
  type ReminderPushData,
  type SettledPushData,
} from './jobs.ts';

/**
 * Turns events into push jobs (jobs.ts), keyed so that a replayed event adds nothing: a bidder who lost the lead
 * (`outbid`), a lot's close (`won`, `lost`), a lot's first bid or watch (the plan of its `closing`), and a lot-end
 * reminder by push recorded as dispatched (`reminder`). Each job reads the subscriptions when it runs.
 */
export function pushReactor(deps: ReactorDeps): Reactor {
  // Job ids added by this process lately: a hot lot's every bid would otherwise ask the queue again for its closing's plan.
  const added = new Set<string>();
  const add = async (name: string, data: object, options: { jobId: string }) => {
    if (added.has(options.jobId)) return;
    await deps.jobs.add(name, data, options);
    if (added.size >= 100_000) added.clear();
    added.add(options.jobId);
  };
  return defineReactor({
    name: 'push-jobs',
    events: [timedBiddingEvents, watchlistEvents, notificationsEvents],
    handles: ['MaxBidPlaced', 'LotSettled', 'LotWatched', 'NotificationDispatched'],
    async react(event) {
      switch (event.type) {
        case 'MaxBidPlaced': {
          const { tenant, lotId, outbidMemberId, bidId, at } = event.data;
          await add(PUSH_CLOSING, { tenant, lotId }, closingPlanJob(tenant, lotId));
          if (outbidMemberId === null) return;
          const data: OutbidPushData = { tenant, lotId, memberId: outbidMemberId, bidId, at, position: event.position };
          await add(PUSH_OUTBID, data, outbidPushJob(data));
          return;
        }
        case 'LotSettled': {
          const data: SettledPushData = { tenant: event.data.tenant, lotId: event.data.lotId, position: event.position };
          await add(PUSH_SETTLED, data, settledPushJob(data));
          return;
        }
        case 'LotWatched': {
          const { tenant, lotId } = event.data;
          await add(PUSH_CLOSING, { tenant, lotId }, closingPlanJob(tenant, lotId));
          return;
        }
        case 'NotificationDispatched': {
          const { tenant, memberId, lotId, channel, messageId, lotEndTime, at } = event.data;
          if (channel !== 'push') return;
          const data: ReminderPushData = { tenant, memberId, lotId, messageId, lotEndTime, at };
          await add(PUSH_REMINDER, data, reminderPushJob(messageId));
          return;
        }
      }
    },
  });
}

/** The reactors of Web Push, registered by pushCommands (commands/push/index.ts). */
export function pushReactors(deps: ReactorDeps): Projection[] {
  return [pushReactor(deps)];
}
