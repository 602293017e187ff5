// The pushes of timed bidding and of push reminders (PUSH.md "What is pushed"), as background jobs the reactor adds
// (reactors.ts): each finds who is told and their subscriptions, words the message in each subscription's language
// and hands it to the push outbox (src/ports/push.ts), whose jobs send it. A message whose TTL has passed by then (a
// replay of old events, a worker that was down) is not handed over at all.
import type { JobDeps } from '../../src/feature.ts';
import type { JobOptions, JobProcessor } from '../../src/ports/jobs.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import type { PushKind } from '../../src/ports/push.ts';
import { formatMoney } from '../../src/format.ts';
import { CATALOGUE_PROJECTION, catalogueLots, timedAuctionIds, type LotDoc } from '../../projections/catalogue/index.ts';
import { tenantSettings } from '../../projections/access/index.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { memberLanguage } from '../../projections/profile/index.ts';
import { subscriptionsOfMembers } from '../../projections/push/index.ts';
import { watchlistEntries } from '../../projections/watchlist/index.ts';
import { lotEvents, lotStreamId } from '../lots/events.ts';
import { payloadText, pushWords, type PushFacts } from './messages.ts';

export const PUSH_OUTBID = 'push-outbid';
export const PUSH_SETTLED = 'push-settled';
export const PUSH_CLOSING = 'push-closing';
export const PUSH_REMINDER = 'push-reminder';

export interface OutbidPushData {
  tenant: string;
  lotId: number;
  memberId: number;
  bidId: string;
  at: string;
  /** The bid's log position: the lot's current bid is read once the catalogue has it. */
  position: number;
}
export interface SettledPushData {
  tenant: string;
  lotId: number;
  position: number;
}
/** Without `mark`: plans the lot's closing push; with it: the push of that moment (ten minutes before the end then). */
export interface ClosingPushData {
  tenant: string;
  lotId: number;
  mark?: number;
}
export interface ReminderPushData {
  tenant: string;
  memberId: number;
  lotId: number;
  /** The reminder's message id (`notification-{subscriptionId}`): its pushes are keyed by it. */
  messageId: string;
  lotEndTime: string;
  at: string;
}

/** How long before its end a lot the member bid on or watches is told of (`closing`). */
export const CLOSING_LEAD_MS = 10 * 60_000;
const DAY_MS = 24 * 3600_000;

const pushJob = (jobId: string, delayMs = 0): JobOptions => ({ jobId, attempts: 5, backoffMs: 2000, ...(delayMs > 0 ? { delayMs } : {}) });
export const outbidPushJob = (d: OutbidPushData) => pushJob(`push-outbid-${d.tenant}-${d.lotId}-${d.memberId}-${d.bidId}`);
export const settledPushJob = (d: SettledPushData) => pushJob(`push-settled-${d.tenant}-${d.lotId}-${d.position}`);
/** One plan per lot: its first bid or watch plans it, the later ones find it made. */
export const closingPlanJob = (tenant: string, lotId: number) => pushJob(`push-closing-${tenant}-${lotId}-plan`);
const closingAtJob = (tenant: string, lotId: number, mark: number, delayMs: number) =>
  pushJob(`push-closing-${tenant}-${lotId}-at-${mark}`, delayMs);
export const reminderPushJob = (messageId: string) => pushJob(`push-${messageId}`);

/** Waits (bounded) until a read model has an event: a push tells the lot as that event left it. */
async function reached(documents: DocumentStore, projection: string, position: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await documents.getCheckpoint(projection)) < position && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

interface Telling {
  tenant: string;
  kind: PushKind;
  messageId: string;
  lot: LotDoc;
  memberIds: readonly number[];
  /** What the push tells, in a language (amounts written in it). */
  facts: (language: string) => Omit<PushFacts, 'lotNumber' | 'title'>;
  urgency: 'high' | 'normal';
  /** Epoch ms after which it is not worth delivering (its TTL counts down to it). */
  expiresAt: number;
  at: string;
}

/** Hands one message to the push subscriptions of these members, each worded in its language; none when it is too late. */
async function tell(deps: JobDeps, t: Telling): Promise<void> {
  const now = deps.now().getTime();
  if (now >= t.expiresAt || t.memberIds.length === 0) return;
  const db = deps.documents.forTenant(t.tenant);
  const live = (await subscriptionsOfMembers(db, t.memberIds)).filter(
    (s) => s.ExpirationTime === null || Date.parse(s.ExpirationTime) > now,
  );
  if (live.length === 0) return;
  const house = await tenantSettings(deps.documents, t.tenant);
  const fallback = house?.DefaultLanguage ?? 'en';
  // Each member's language, and only members the house still has (a removed member's browsers get nothing).
  const languages = new Map<number, string>();
  for (const memberId of new Set(live.map((s) => s.MemberId))) {
    const member = await memberAccounts(db).findById(String(memberId));
    if (member) languages.set(memberId, await memberLanguage(db, member));
  }
  const subscriptions = live.filter((s) => languages.has(s.MemberId));
  if (subscriptions.length === 0) return;
  const payloads = new Map<string, string>();
  const payloadIn = (language: string) => {
    const kept = payloads.get(language);
    if (kept) return kept;
    const title = t.lot.Texts[language]?.Title ?? t.lot.Texts[fallback]?.Title ?? Object.values(t.lot.Texts)[0]?.Title ?? '';
    const words = pushWords(t.kind, language, { lotNumber: t.lot.LotNumber, title, ...t.facts(language) });
    const text = payloadText({ type: t.kind, ...words, lotId: t.lot.Id, auctionId: t.lot.AuctionId, at: t.at });
    payloads.set(language, text);
    return text;
  };
  await deps.push.send({
    id: t.messageId,
    tenant: t.tenant,
    kind: t.kind,
    urgency: t.urgency,
    topic: `${t.kind}-${t.lot.Id}`,
    expiresAt: new Date(t.expiresAt).toISOString(),
    targets: subscriptions.map((s) => ({
      memberId: s.MemberId,
      subscriptionId: s.Id,
      payload: payloadIn(s.Language ?? languages.get(s.MemberId) ?? fallback),
    })),
  });
}

const money = (lot: LotDoc, amount: number, language: string) => formatMoney(amount, lot.Currency, language, 'always');

/** `outbid`: the bidder who lost the lead, while the lot is open (TTL: until it closes, a day at most). */
function outbidPush(deps: JobDeps): JobProcessor {
  return async (job) => {
    const d = job.data as OutbidPushData;
    await reached(deps.documents, CATALOGUE_PROJECTION, d.position);
    const lot = await catalogueLots(deps.documents.forTenant(d.tenant)).findById(String(d.lotId));
    if (!lot || lot.Closed) return;
    await tell(deps, {
      tenant: d.tenant,
      kind: 'outbid',
      messageId: `outbid-${d.tenant}-${d.lotId}-${d.memberId}-${d.bidId}`,
      lot,
      memberIds: [d.memberId],
      facts: (language) => ({ amount: money(lot, lot.CurrentBid ?? lot.StartingPrice, language) }),
      urgency: 'high',
      expiresAt: Math.min(Date.parse(lot.EndTime), Date.parse(d.at) + DAY_MS),
      at: d.at,
    });
  };
}

/** `won` for the buyer and `lost` for every other bidder of a lot that closed (TTL: a day from the close). */
function settledPush(deps: JobDeps): JobProcessor {
  return async (job) => {
    const d = job.data as SettledPushData;
    const bidders = new Set<number>();
    let settled: { sold: boolean; hammerPrice: number | null; winnerMemberId: number | null; at: string } | null = null;
    for (const recorded of await deps.log.readStream(lotStreamId(d.tenant, d.lotId))) {
      const event = lotEvents.read(recorded);
      if (event.type === 'MaxBidPlaced') bidders.add(event.data.memberId);
      if (event.type === 'LotSettled' && recorded.position === d.position) settled = event.data;
    }
    const lot = await catalogueLots(deps.documents.forTenant(d.tenant)).findById(String(d.lotId));
    if (!settled || !lot) return;
    const { sold, hammerPrice, winnerMemberId, at } = settled;
    const winner = sold && winnerMemberId !== null ? winnerMemberId : null;
    const base = { tenant: d.tenant, lot, urgency: 'normal' as const, expiresAt: Date.parse(at) + DAY_MS, at };
    if (winner !== null && hammerPrice !== null)
      await tell(deps, {
        ...base,
        kind: 'won',
        messageId: `won-${d.tenant}-${d.lotId}-${d.position}`,
        memberIds: [winner],
        facts: (language) => ({ amount: money(lot, hammerPrice, language) }),
      });
    await tell(deps, {
      ...base,
      kind: 'lost',
      messageId: `lost-${d.tenant}-${d.lotId}-${d.position}`,
      memberIds: [...bidders].filter((m) => m !== winner),
      facts: () => ({ sold }),
    });
  };
}

/**
 * `closing`, ten minutes before a timed lot closes, to each member who bid on it or watched it before that moment: the
 * plan (the lot's first bid or watch) adds the job of the moment; that job, run early (the end moved later), adds the
 * job of the new moment. A plan made inside the last ten minutes tells nobody.
 */
function closingPush(deps: JobDeps): JobProcessor {
  return async (job) => {
    const d = job.data as ClosingPushData;
    const db = deps.documents.forTenant(d.tenant);
    const lot = await catalogueLots(db).findById(String(d.lotId));
    if (!lot || lot.Closed || !(await timedAuctionIds(db)).has(lot.AuctionId)) return;
    const end = Date.parse(lot.EndTime);
    const mark = end - CLOSING_LEAD_MS;
    const now = deps.now().getTime();
    if (now < mark) {
      await deps.jobs.add(PUSH_CLOSING, { tenant: d.tenant, lotId: d.lotId, mark }, closingAtJob(d.tenant, d.lotId, mark, mark - now));
      return;
    }
    if (d.mark === undefined || now >= end) return;
    const before = new Date(mark).toISOString();
    const members = new Set<number>();
    for (const recorded of await deps.log.readStream(lotStreamId(d.tenant, d.lotId))) {
      const event = lotEvents.read(recorded);
      if (event.type === 'MaxBidPlaced' && event.data.at < before) members.add(event.data.memberId);
    }
    for (const watch of await watchlistEntries(db).find({ LotId: d.lotId, WatchedAt: { $lt: before } })) members.add(watch.MemberId);
    const hasBid = lot.CurrentBid !== null;
    await tell(deps, {
      tenant: d.tenant,
      kind: 'closing',
      messageId: `closing-${d.tenant}-${d.lotId}-${mark}`,
      lot,
      memberIds: [...members],
      facts: (language) => ({ hasBid, amount: money(lot, lot.CurrentBid ?? lot.StartingPrice, language) }),
      urgency: 'high',
      expiresAt: end,
      at: new Date(now).toISOString(),
    });
  };
}

/** `reminder`: a lot-end reminder of `Type` 3 (operation 52) to every push subscription of its member (TTL: until the lot ends). */
function reminderPush(deps: JobDeps): JobProcessor {
  return async (job) => {
    const d = job.data as ReminderPushData;
    const lot = await catalogueLots(deps.documents.forTenant(d.tenant)).findById(String(d.lotId));
    const end = Date.parse(d.lotEndTime);
    if (!lot) return;
    const minutesLeft = Math.max(0, Math.round((end - deps.now().getTime()) / 60_000));
    const endsAt = `${new Date(end).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    await tell(deps, {
      tenant: d.tenant,
      kind: 'reminder',
      messageId: d.messageId,
      lot,
      memberIds: [d.memberId],
      facts: () => ({ minutesLeft, endsAt }),
      urgency: 'normal',
      expiresAt: Math.min(end, Date.parse(d.at) + DAY_MS),
      at: d.at,
    });
  };
}

/** The background jobs of Web Push, by job name. */
export function pushJobs(deps: JobDeps): Record<string, JobProcessor> {
  return {
    [PUSH_OUTBID]: outbidPush(deps),
    [PUSH_SETTLED]: settledPush(deps),
    [PUSH_CLOSING]: closingPush(deps),
    [PUSH_REMINDER]: reminderPush(deps),
  };
}
