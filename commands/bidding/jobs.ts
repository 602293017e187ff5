// Timed bidding's background jobs: closing a lot at its end time, and the "outbid" mail.
import type { JobDeps } from '../../src/feature.ts';
import type { JobProcessor } from '../../src/ports/jobs.ts';
import { foldStream, runCommand } from '../../src/command-runner.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { tenantSettings } from '../../projections/access/index.ts';
import { lotStreamId } from './events.ts';
import { biddingDecider } from './decide.ts';
import { closesCounter } from './metrics.ts';
import { CLOSE_LOT, closeLotJob, OUTBID_MAIL, type CloseLotJobData, type OutbidMailJobData } from './shared.ts';

/**
 * Closes a lot when its end time has come: earlier, it schedules itself for the end time (a delayed job kept
 * across restarts, keyed by that time, so an extension schedules another and this one does nothing when it
 * runs). A lot whose time passed while the service was down closes when the worker starts.
 */
function closeLot(deps: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, lotId } = job.data as CloseLotJobData;
    const state = await foldStream(deps.log, lotStreamId(tenant, lotId), biddingDecider);
    if (state.closed || state.endTime === null) return;
    const now = deps.now();
    const due = Date.parse(state.endTime);
    if (now.getTime() < due) {
      await deps.jobs.add(CLOSE_LOT, { tenant, lotId }, closeLotJob(tenant, lotId, state.endTime, due - now.getTime()));
      return;
    }
    const { events } = await runCommand(deps.log, lotStreamId(tenant, lotId), biddingDecider, {
      type: 'CloseLot',
      tenant,
      lotId,
      at: now.toISOString(),
    });
    for (const event of events)
      if (event.type === 'LotSettled') deps.counters.inc(closesCounter, { result: event.data.sold ? 'sold' : 'unsold' });
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
    const [member, house, state] = await Promise.all([
      memberAccounts(db).findById(String(memberId)),
      tenantSettings(deps.documents, tenant),
      foldStream(deps.log, lotStreamId(tenant, lotId), biddingDecider),
    ]);
    if (!member || !state.lot || state.closed) return;
    const texts = state.lot.texts;
    const language = [member.Language, house?.DefaultLanguage].find((l): l is string => !!l && !!OUTBID_TEXT[l] && !!texts[l]) ?? 'en';
    const text = OUTBID_TEXT[language] ?? OUTBID_TEXT.en;
    const bid = `${((state.currentBid ?? 0) / 100).toFixed(2)} ${state.lot.currency}`;
    await deps.outbox.send({
      id: job.id,
      channel: 'mail',
      tenant,
      to: member.Email,
      subject: `${house?.Name ?? tenant}: ${text.subject}`,
      body: text.body
        .replace('{lot}', String(state.lot.lotNumber))
        .replace('{title}', texts[language]?.title ?? '')
        .replace('{bid}', bid),
    });
  };
}

/** The background jobs of timed bidding, by job name. */
export function biddingJobs(deps: JobDeps): Record<string, JobProcessor> {
  return { [CLOSE_LOT]: closeLot(deps), [OUTBID_MAIL]: outbidMail(deps) };
}
