import { defineReactor, type Projection, type Reactor, type ReactorDeps } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../catalogue/events.ts';
import { catalogueLotEvents, timedBiddingEvents } from '../lots/events.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import { CATALOGUE_PROJECTION, timedAuctionIds } from '../../projections/catalogue/index.ts';
import { CLOSE_LOT, closeLotJob, OUTBID_MAIL, outbidMailJob, PLAN_CLOSES, planClosesJob } from './jobs.ts';

/** How long the reactor waits for the catalogue read model before it gives the batch back to be retried. */
const READ_MODEL_WAIT_MS = 10_000;

/**
 * Waits until the catalogue read model has this event (each projection follows the log on its own loop, so it
 * may be behind the reactor), and answers where it stands.
 */
async function catalogueReached(documents: DocumentStore, position: number): Promise<number> {
  const deadline = Date.now() + READ_MODEL_WAIT_MS;
  for (;;) {
    const checkpoint = await documents.getCheckpoint(CATALOGUE_PROJECTION);
    if (checkpoint >= position) return checkpoint;
    if (Date.now() >= deadline) throw new Error(`the ${CATALOGUE_PROJECTION} read model has not reached position ${position}; retrying`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Turns the lots of timed auctions and their bids into jobs, keyed so that a replayed event adds nothing: every
 * lot of a timed auction gets a close at its end time, sold or not (API.md "Front ends in a browser"): a lot
 * catalogued into a timed auction at its catalogued end time (a re-import that moves it plans again), an auction
 * catalogued as timed once for all its lots (PLAN_CLOSES, from the read model), an extension at the new end time,
 * and a lot's first maximum bid (the job finds the end time on the lot's stream). A bidder who lost the lead gets
 * an "outbid" mail (one per lot and member in ten minutes). Lots of external auctions get no job at all.
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
  // Each tenant's timed auctions as the catalogue read model had them once it had the event at hand, forgotten
  // at the tenant's next AuctionCatalogued (the only event that changes them): an import of many lots reads
  // them once. (Read later than the event, they may say a later mode: a lot planned then does nothing when its
  // close job finds its auction external, and an auction that became timed plans its lots by PLAN_CLOSES.)
  let reached = 0;
  const timed = new Map<string, ReadonlySet<number>>();
  const timedOf = async (tenant: string, position: number) => {
    let ids = timed.get(tenant);
    if (ids) return ids;
    if (reached < position) reached = await catalogueReached(deps.documents, position);
    timed.set(tenant, (ids = await timedAuctionIds(deps.documents.forTenant(tenant))));
    return ids;
  };
  return defineReactor({
    name: 'bidding-jobs',
    events: [timedBiddingEvents, catalogueLotEvents, catalogueEvents],
    handles: ['MaxBidPlaced', 'LotEndTimeExtended', 'LotCatalogued', 'AuctionCatalogued'],
    async react(event) {
      switch (event.type) {
        case 'AuctionCatalogued': {
          const { tenant, auctionId } = event.data;
          timed.delete(tenant);
          if (event.data.bidding !== 'timed') return;
          // The job reads the auction's lots from the catalogue read model: once that has them all.
          if (reached < event.position) reached = await catalogueReached(deps.documents, event.position);
          await add(PLAN_CLOSES, { tenant, auctionId }, planClosesJob(tenant, auctionId, event.position));
          return;
        }
        case 'LotCatalogued': {
          const { tenant, lotId, auctionId, endTime } = event.data;
          if (!(await timedOf(tenant, event.position)).has(auctionId)) return;
          const delayMs = Date.parse(endTime) - Date.now();
          await add(CLOSE_LOT, { tenant, lotId }, closeLotJob(tenant, lotId, endTime, delayMs));
          return;
        }
        case 'LotEndTimeExtended': {
          const { tenant, lotId, endTime } = event.data;
          const delayMs = Math.max(0, Date.parse(endTime) - Date.now());
          await add(CLOSE_LOT, { tenant, lotId }, closeLotJob(tenant, lotId, endTime, delayMs));
          return;
        }
        case 'MaxBidPlaced': {
          const { tenant, lotId } = event.data;
          await add(
            CLOSE_LOT,
            { tenant, lotId },
            { ...closeLotJob(tenant, lotId, new Date(0).toISOString()), jobId: `close-lot-${tenant}-${lotId}-plan` },
          );
          const outbid = event.data.outbidMemberId;
          if (outbid !== null)
            await add(OUTBID_MAIL, { tenant, lotId, memberId: outbid }, outbidMailJob(tenant, lotId, outbid, event.data.at));
          return;
        }
      }
    },
  });
}

/**
 * The reactors of timed bidding, registered by biddingCommands (commands/bidding/index.ts); app/features/index.ts
 * lists the catalogue's read models and biddingReadModels before it, so the reactor runs after those projections
 * (the auctions' modes it reads, the lots PLAN_CLOSES reads).
 */
export function biddingReactors(deps: ReactorDeps): Projection[] {
  return [biddingReactor(deps)];
}
