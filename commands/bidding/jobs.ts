// Timed bidding's background jobs: closing a lot at its end time (and planning the closes of a timed auction's
// lots), and the "outbid" mail.
import type { JobDeps } from '../../src/feature.ts';
import type { JobProcessor } from '../../src/ports/jobs.ts';
import { runCommand } from '../../src/command-runner.ts';
import { defineCounter } from '../../src/counters.ts';
import { NotFoundError } from '../../src/errors.ts';
import { catalogueLots, timedAuctionIds } from '../../projections/catalogue/index.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { senderOf, tenantSettings } from '../../projections/access/index.ts';
import { memberLanguage } from '../../projections/profile/index.ts';
import { mailHtml } from '../../src/text/mail.ts';
import { formatMoney } from '../../src/format.ts';
import { lotStreamId } from '../lots/events.ts';
import { outbidMailsStopped } from '../notifications/rules.ts';
import { biddingDecider } from './decide.ts';

const closesCounter = defineCounter({
  name: 'bidder_lots_closed_total',
  help: 'Lots of timed auctions closed at their end time, by result (sold, unsold)',
  labelNames: ['result'],
});

/* The jobs, as the reactor that adds them (reactors.ts) and their processors below know them. */

/** Closes a lot at its end time (it plans itself again when run early). */
export const CLOSE_LOT = 'bidding-close-lot';
export interface CloseLotJobData {
  tenant: string;
  lotId: number;
}
/** A close job for one end time (a later end time is another job), delayed until it. */
export const closeLotJob = (tenant: string, lotId: number, endTime: string, delayMs = 0) => ({
  jobId: `close-lot-${tenant}-${lotId}-${Date.parse(endTime)}`,
  attempts: 10,
  backoffMs: 1000,
  ...(delayMs > 0 ? { delayMs } : {}),
});

/**
 * Plans a close for every open lot of an auction that became (or was catalogued again as) timed, from the
 * catalogue read model: its lots catalogued before are not seen again by the reactor. One per AuctionCatalogued.
 */
export const PLAN_CLOSES = 'bidding-plan-closes';
export interface PlanClosesJobData {
  tenant: string;
  auctionId: number;
}
/** Keyed by the event's position: a replay adds nothing, a later record of the auction plans again. */
export const planClosesJob = (tenant: string, auctionId: number, position: number) => ({
  jobId: `plan-closes-${tenant}-${auctionId}-${position}`,
  attempts: 5,
  backoffMs: 1000,
});

/** The "outbid" mail: at most one per lot and member in a ten-minute window (its job id). */
export const OUTBID_MAIL = 'bidding-outbid-mail';
export interface OutbidMailJobData {
  tenant: string;
  lotId: number;
  memberId: number;
}
export const OUTBID_WINDOW_MS = 10 * 60_000;
export const outbidMailJob = (tenant: string, lotId: number, memberId: number, at: string) => ({
  jobId: `outbid-${tenant}-${lotId}-${memberId}-${Math.floor(Date.parse(at) / OUTBID_WINDOW_MS)}`,
  attempts: 5,
  backoffMs: 2000,
});

/**
 * Closes a lot when its end time has come, through the runner (the lot's state as it keeps it: no read of the
 * whole stream, which a storm of extensions would otherwise read once per extension). Before the end time (an
 * extension moved it), it schedules itself for the new one: a delayed job kept across restarts, keyed by that
 * time. A lot whose time passed while the service was down closes when the worker starts.
 */
function closeLot(deps: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, lotId } = job.data as CloseLotJobData;
    const now = deps.now();
    // The mode of the lot's auction as the catalogue read model has it now (an external lot is intake's to close).
    const db = deps.documents.forTenant(tenant);
    const [lot, timed] = await Promise.all([catalogueLots(db).findById(String(lotId)), timedAuctionIds(db)]);
    let result;
    try {
      result = await runCommand(deps.log, lotStreamId(tenant, lotId), biddingDecider, {
        type: 'CloseLot',
        tenant,
        lotId,
        at: now.toISOString(),
        bidding: lot && timed.has(lot.AuctionId) ? 'timed' : 'external',
      });
    } catch (error) {
      if (error instanceof NotFoundError) return; // no such lot: nothing to close
      throw error;
    }
    for (const event of result.events)
      if (event.type === 'LotSettled') deps.counters.inc(closesCounter, { result: event.data.sold ? 'sold' : 'unsold' });
    const { closed, endTime } = result.view!;
    if (!closed && endTime !== null && Date.parse(endTime) > now.getTime())
      await deps.jobs.add(CLOSE_LOT, { tenant, lotId }, closeLotJob(tenant, lotId, endTime, Date.parse(endTime) - now.getTime()));
  };
}

/** Adds a close at its end time for each open lot of a timed auction (kept keyed by that time: a lot planned already adds nothing). */
function planCloses(deps: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, auctionId } = job.data as PlanClosesJobData;
    const db = deps.documents.forTenant(tenant);
    if (!(await timedAuctionIds(db)).has(auctionId)) return; // external again since: intake closes its lots
    const now = deps.now().getTime();
    for (const lot of await catalogueLots(db).find({ AuctionId: auctionId, Closed: false }))
      await deps.jobs.add(CLOSE_LOT, { tenant, lotId: lot.Id }, closeLotJob(tenant, lot.Id, lot.EndTime, Date.parse(lot.EndTime) - now));
  };
}

const OUTBID_TEXT: Record<string, { subject: string; body: string }> = {
  en: {
    subject: 'You have been outbid',
    body: 'Another bidder now leads on lot {lot} ({title}). Current bid: {bid}. Raise your maximum to take the lead again.',
  },
  sv: {
    subject: 'Du har blivit överbjuden',
    body: 'En annan budgivare leder nu på rop {lot} ({title}). Aktuellt bud: {bid}. Höj ditt maxbud för att leda igen.',
  },
  de: {
    subject: 'Sie wurden überboten',
    body: 'Ein anderer Bieter führt jetzt bei Los {lot} ({title}). Aktuelles Gebot: {bid}. Erhöhen Sie Ihr Maximalgebot, um wieder zu führen.',
  },
};

/** One "outbid" mail to a bidder who lost the lead (the job's id allows one per lot and member in ten minutes). */
function outbidMail(deps: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, lotId, memberId } = job.data as OutbidMailJobData;
    const db = deps.documents.forTenant(tenant);
    // The lot as the catalogue read model has it (a hot lot's stream is not read again per mail).
    const [member, house, lot] = await Promise.all([
      memberAccounts(db).findById(String(memberId)),
      tenantSettings(deps.documents, tenant),
      catalogueLots(db).findById(String(lotId)),
    ]);
    if (!member || !lot || lot.Closed || Date.parse(lot.EndTime) <= deps.now().getTime()) return;
    // The member unsubscribed from this auction's "outbid" mails (the one-click link of an earlier one).
    if (await outbidMailsStopped(deps.log, tenant, memberId, lot.AuctionId)) return;
    const texts = lot.Texts;
    const preferred = await memberLanguage(db, member);
    const language = [preferred, house?.DefaultLanguage].find((l): l is string => !!l && !!OUTBID_TEXT[l] && !!texts[l]) ?? 'en';
    const text = OUTBID_TEXT[language] ?? OUTBID_TEXT.en;
    const bid = formatMoney(lot.CurrentBid ?? 0, lot.Currency, language, 'always');
    const subject = `${house?.Name ?? tenant}: ${text.subject}`;
    const body = text.body
      .replace('{lot}', String(lot.LotNumber))
      .replace('{title}', texts[language]?.Title ?? '')
      .replace('{bid}', bid);
    await deps.outbox.send({
      id: job.id,
      kind: 'outbid',
      channel: 'mail',
      tenant,
      memberId,
      to: member.Email,
      sender: senderOf(house ?? null, tenant),
      language,
      subject,
      body,
      html: mailHtml(body, language, subject),
      // One click stops this auction's "outbid" mails to the member (RFC 8058).
      unsubscribeUrl: deps.links.unsubscribe({ tenant, memberId, kind: 'outbid', scope: lot.AuctionId }, deps.now().getTime()).url,
    });
  };
}

/** The background jobs of timed bidding, by job name. */
export function biddingJobs(deps: JobDeps): Record<string, JobProcessor> {
  return { [CLOSE_LOT]: closeLot(deps), [PLAN_CLOSES]: planCloses(deps), [OUTBID_MAIL]: outbidMail(deps) };
}
