import { defineReactor, type Projection, type Reactor, type ReactorDeps } from '../../src/projector/projection.ts';
import { timedBiddingEvents } from '../lots/events.ts';
import { CLOSE_LOT, closeLotJob, OUTBID_MAIL, outbidMailJob } from './jobs.ts';

/**
 * Turns timed bids into jobs, keyed so that a replayed event adds nothing: a lot's first maximum bid plans its
 * close (the job finds the end time on the lot's stream), an extension adds a close at the new end time, and a
 * bidder who lost the lead gets an "outbid" mail (one per lot and member in ten minutes). Lots nobody bid on
 * need no close: with no bidder, nothing is decided at their end.
 */
export function biddingReactor(deps: ReactorDeps): Reactor {
  // Job ids added by this process lately: a hot lot's every bid would otherwise ask the queue again for its
  // plan and its outbid mails (the queue ignores them anyway). Bounded: forgotten all at once.
  const added = new Set<string>();
  const add = async (name: string, data: object, options: { jobId: string; delayMs?: number }) => {
    if (added.has(options.jobId)) return;
    await deps.jobs.add(name, data, options);
    if (added.size >= 100_000) added.clear();
    added.add(options.jobId);
  };
  return defineReactor({
    name: 'bidding-jobs',
    events: [timedBiddingEvents],
    handles: ['MaxBidPlaced', 'LotEndTimeExtended'],
    async react(event) {
      const { tenant, lotId } = event.data;
      if (event.type === 'LotEndTimeExtended') {
        const delayMs = Math.max(0, Date.parse(event.data.endTime) - Date.now());
        await add(CLOSE_LOT, { tenant, lotId }, closeLotJob(tenant, lotId, event.data.endTime, delayMs));
        return;
      }
      await add(
        CLOSE_LOT,
        { tenant, lotId },
        { ...closeLotJob(tenant, lotId, new Date(0).toISOString()), jobId: `close-lot-${tenant}-${lotId}-plan` },
      );
      const outbid = event.data.outbidMemberId;
      if (outbid !== null) await add(OUTBID_MAIL, { tenant, lotId, memberId: outbid }, outbidMailJob(tenant, lotId, outbid, event.data.at));
    },
  });
}

/**
 * The reactors of timed bidding, registered by biddingCommands (commands/bidding/index.ts); app/features/index.ts
 * lists biddingReadModels before it, so the reactor runs after the bidding projection.
 */
export function biddingReactors(deps: ReactorDeps): Projection[] {
  return [biddingReactor(deps)];
}
