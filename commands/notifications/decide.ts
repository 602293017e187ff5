import type { Decider } from '../../src/decider.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import { assertNever } from '../../src/assert-never.ts';
import { notificationsEvents, type MailKind, type NotificationChannel, type NotificationsEvent, type SkipReason } from './events.ts';

/** A lot-end reminder: subscribed, then sent once or skipped once, and removable by its member at any time. */
export interface SubscriptionState {
  memberId: number;
  lotId: number;
  minutesBefore: number;
  channel: NotificationChannel;
  status: 'active' | 'sent' | 'skipped' | 'unsubscribed';
}

/** Active (pending) reminders a member may hold at once (409 beyond). */
export const MAX_ACTIVE_SUBSCRIPTIONS = 1000;

export interface SubscribeCommand {
  type: 'Subscribe';
  tenant: string;
  subscriptionId: string;
  memberId: number;
  lotId: number;
  minutesBefore: number;
  channel: NotificationChannel;
  clientEndTime: string | null;
  /** The lot as the catalogue shows it (its end time includes an early close); null when there is no such lot. */
  lot: { endTime: string } | null;
  /** Whether the member has a phone number now (SMS reminders need one). */
  hasPhone: boolean;
  /**
   * The member's pending reminders on per-subscription streams (made before the member stream), as the read
   * model counts them. No such subscription can be made any more, so their number only goes down: a count read
   * a moment ago is at least the true one, and the limit decided with it is never passed (see memberNotificationsDecider).
   */
  legacyPending: number;
  at: string;
}

/** The commands about one existing subscription: the same on a member's stream and on an older per-subscription one. */
export type SubscriptionCommand =
  | { type: 'Unsubscribe'; tenant: string; subscriptionId: string; memberId: number; at: string }
  | { type: 'RecordDispatched'; tenant: string; subscriptionId: string; messageId: string; lotEndTime: string; at: string }
  | { type: 'RecordSkipped'; tenant: string; subscriptionId: string; reason: SkipReason; at: string };

/** A one-click unsubscribe link used (RFC 8058): stop a kind of notification mail of the member. */
export interface StopMailsCommand {
  type: 'StopMails';
  tenant: string;
  memberId: number;
  kind: MailKind;
  /** The auction of `outbid`; null for `reminder`. */
  auctionId: number | null;
  /** The link's id: a link works once. */
  linkId: string;
  at: string;
}

export type NotificationCommand = SubscribeCommand | SubscriptionCommand | StopMailsCommand;

/**
 * Not a failure: the answer to a Subscribe asking for a reminder that is pending already (same lot, SendTime
 * and channel). Nothing is appended; the caller answers with the pending reminder's id.
 */
export class SameReminderPending extends Error {
  constructor(readonly subscriptionId: string) {
    super(`The same reminder is pending already: ${subscriptionId}.`);
    this.name = 'SameReminderPending';
  }
}

/** A member's reminders (one stream per member): those not removed, by id, and the pending ones by what they ask for. */
export interface MemberNotificationsState {
  subscriptions: Map<string, SubscriptionState>;
  /** Pending reminders by lot, SendTime and channel (the retry rule): key → subscription id. */
  pendingByRequest: Map<string, string>;
  /** How many reminders on this stream are pending. */
  pending: number;
  /** The unsubscribe links used (NotificationMailsStopped): each works once. */
  usedLinks: Set<string>;
  /** Auctions whose "outbid" mails the member stopped. */
  outbidStopped: Set<number>;
}

const requestKey = (s: { lotId: number; minutesBefore: number; channel: NotificationChannel }) =>
  `${s.lotId}:${s.minutesBefore}:${s.channel}`;

/** One subscription's state after one of its events (both layouts record the same events). */
function evolveSubscription(state: SubscriptionState | null, event: NotificationsEvent): SubscriptionState | null {
  switch (event.type) {
    case 'NotificationSubscribed': {
      const d = event.data;
      return { memberId: d.memberId, lotId: d.lotId, minutesBefore: d.minutesBefore, channel: d.channel, status: 'active' };
    }
    case 'NotificationDispatched':
      return state && { ...state, status: 'sent' };
    case 'NotificationSkipped':
      return state && { ...state, status: 'skipped' };
    case 'NotificationUnsubscribed':
      return state && { ...state, status: 'unsubscribed' };
    case 'NotificationMailsStopped':
      // About the member's mails, not one subscription: the member's stream keeps it (memberNotificationsDecider).
      return state;
    default:
      return assertNever(event);
  }
}

/** What a command about one subscription decides, given that subscription's state (null: none). */
function decideOnSubscription(command: SubscriptionCommand, state: SubscriptionState | null): NotificationsEvent[] {
  switch (command.type) {
    case 'Unsubscribe': {
      // Another member's subscription is answered as one that does not exist.
      if (!state || state.memberId !== command.memberId || state.status === 'unsubscribed')
        throw new NotFoundError(`Notification ${command.subscriptionId} does not exist.`);
      const { tenant, subscriptionId, memberId, at } = command;
      return [{ type: 'NotificationUnsubscribed', data: { tenant, subscriptionId, memberId, lotId: state.lotId, at } }];
    }
    case 'RecordDispatched': {
      // Sent once: a duplicated or retried job finds it sent (or removed meanwhile) and records nothing.
      if (!state || state.status !== 'active') return [];
      const { tenant, subscriptionId, messageId, lotEndTime, at } = command;
      return [
        {
          type: 'NotificationDispatched',
          data: { tenant, subscriptionId, memberId: state.memberId, lotId: state.lotId, channel: state.channel, messageId, lotEndTime, at },
        },
      ];
    }
    case 'RecordSkipped': {
      if (!state || state.status !== 'active') return [];
      const { tenant, subscriptionId, reason, at } = command;
      return [
        {
          type: 'NotificationSkipped',
          data: { tenant, subscriptionId, memberId: state.memberId, lotId: state.lotId, channel: state.channel, reason, at },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}

/**
 * A member's lot-end reminders, decided on the member's own stream (`notifications-{tenant}-{memberId}`): the
 * limit of pending reminders and the retry rule are decided on the stream's state and the append carries the
 * stream's revision, so parallel subscribes, in one process or several, never pass the limit nor make two of
 * the same reminder.
 *
 * Subscriptions made before this stream live on streams of their own (legacySubscriptionDecider). They count
 * against the limit through `legacyPending`, read from the read model before the command: none can be made any
 * more, so their true number at the append is at most the count read, and `pending + legacyPending < limit`
 * before a new one means at most the limit after it, whatever runs in parallel (what runs in parallel on this
 * stream is serialised by its revision; on the older streams it can only remove or complete reminders).
 */
export const memberNotificationsDecider: Decider<MemberNotificationsState, NotificationCommand, NotificationsEvent> = {
  events: notificationsEvents,
  initialState: () => ({
    subscriptions: new Map(),
    pendingByRequest: new Map(),
    pending: 0,
    usedLinks: new Set(),
    outbidStopped: new Set(),
  }),
  evolve: (state, event) => {
    // In place: the runner gives every stream its own state.
    if (event.type === 'NotificationMailsStopped') {
      state.usedLinks.add(event.data.linkId);
      if (event.data.kind === 'outbid' && event.data.auctionId !== null) state.outbidStopped.add(event.data.auctionId);
      return state;
    }
    const id = event.data.subscriptionId;
    const before = state.subscriptions.get(id) ?? null;
    const after = evolveSubscription(before, event);
    if (before?.status === 'active' && after?.status !== 'active') {
      state.pending--;
      if (state.pendingByRequest.get(requestKey(before)) === id) state.pendingByRequest.delete(requestKey(before));
    }
    if (after?.status === 'active' && before?.status !== 'active') {
      state.pending++;
      state.pendingByRequest.set(requestKey(after), id);
    }
    // A removed reminder is gone (as from the read model): removing it again is 404, and nothing is sent for it.
    if (!after || after.status === 'unsubscribed') state.subscriptions.delete(id);
    else state.subscriptions.set(id, after);
    return state;
  },
  decide: (command, state) => {
    if (command.type === 'StopMails') return stopMails(command, state);
    if (command.type !== 'Subscribe') return decideOnSubscription(command, state.subscriptions.get(command.subscriptionId) ?? null);
    const { tenant, subscriptionId, memberId, lotId, minutesBefore, channel, clientEndTime, lot, at } = command;
    if (state.subscriptions.has(subscriptionId))
      throw new ConflictError('reminder-exists', `Subscription ${subscriptionId} exists already.`);
    if (!lot) throw new NotFoundError(`Lot ${lotId} does not exist.`);
    if (Date.parse(lot.endTime) <= Date.parse(at))
      throw new ConflictError('bidding-ended', `Lot ${lotId} is closed: bidding ended at ${lot.endTime}.`);
    // The same reminder asked for again (a client's retry, perhaps in parallel) is the one that is pending.
    const pending = state.pendingByRequest.get(requestKey(command));
    if (pending) throw new SameReminderPending(pending);
    if (channel === 'sms' && !command.hasPhone)
      throw new ValidationError(
        'An SMS reminder (Type 2) needs a phone number in the profile; add one, or choose e-mail (Type 1).',
        [{ field: 'body.Type', message: 'SMS needs a phone number in the profile' }],
        { code: 'phone-number-required' },
      );
    if (state.pending + command.legacyPending >= MAX_ACTIVE_SUBSCRIPTIONS)
      throw new ConflictError(
        'reminder-limit-reached',
        `A member holds at most ${MAX_ACTIVE_SUBSCRIPTIONS} active reminders; remove some first.`,
      );
    return [
      {
        type: 'NotificationSubscribed',
        data: { tenant, subscriptionId, memberId, lotId, minutesBefore, channel, lotEndTime: lot.endTime, clientEndTime, at },
      },
    ];
  },
};

/**
 * An unsubscribe link used: it works once (used again: 404, whatever happened since). `reminder` removes every
 * reminder by e-mail pending now (SMS reminders stay; one asked for later is the member's new wish and is sent);
 * `outbid` records the auction, whose "outbid" mails the mail job then leaves out (outbidMailsStopped, rules.ts).
 */
function stopMails(command: StopMailsCommand, state: MemberNotificationsState): NotificationsEvent[] {
  const { tenant, memberId, kind, auctionId, linkId, at } = command;
  if (state.usedLinks.has(linkId))
    throw new AppError(404, 'Not Found', 'This unsubscribe link was used already: its notifications are stopped.', {
      code: 'unsubscribe-link-used',
    });
  const stopped: NotificationsEvent = { type: 'NotificationMailsStopped', data: { tenant, memberId, kind, auctionId, linkId, at } };
  if (kind === 'outbid') return [stopped];
  const removed: NotificationsEvent[] = [...state.subscriptions]
    .filter(([, s]) => s.status === 'active' && s.channel === 'email')
    .map(([subscriptionId, s]) => ({ type: 'NotificationUnsubscribed', data: { tenant, subscriptionId, memberId, lotId: s.lotId, at } }));
  return [stopped, ...removed];
}

/**
 * A subscription made before the member stream, on its own stream (`notification-{tenant}-{subscriptionId}`):
 * it is still removed, sent or skipped there; nothing new is subscribed on such a stream.
 */
export const legacySubscriptionDecider: Decider<SubscriptionState | null, SubscriptionCommand, NotificationsEvent> = {
  events: notificationsEvents,
  initialState: () => null,
  evolve: evolveSubscription,
  decide: decideOnSubscription,
};

/**
 * A due reminder whose moment passed longer ago than this is sent only while the lot is still open: a
 * reminder at the very end (`SendTime` 0) still goes out when its job runs a little after the end, but a
 * reminder never goes out long after the lot ended (the service was down, or the lot closed early).
 */
export const ON_TIME_MS = 60_000;

export type ReminderPlan =
  | { action: 'done'; reason: 'not-active' }
  | { action: 'wait'; fireAt: number }
  | { action: 'send'; fireAt: number; endTime: number }
  | { action: 'too-late'; fireAt: number; endTime: number };

/**
 * What to do about a reminder now (pure): its moment is `minutesBefore` minutes before the lot's actual end
 * time (the catalogued end time, or the early close when earlier). Before the moment: wait for it. From the
 * moment on: send while the lot is open, or when the moment is at most ON_TIME_MS ago.
 */
export function planReminder(state: SubscriptionState | null, lotEndTime: number, now: number): ReminderPlan {
  if (!state || state.status !== 'active') return { action: 'done', reason: 'not-active' };
  const fireAt = lotEndTime - state.minutesBefore * 60_000;
  if (now < fireAt) return { action: 'wait', fireAt };
  if (now < lotEndTime || now - fireAt <= ON_TIME_MS) return { action: 'send', fireAt, endTime: lotEndTime };
  return { action: 'too-late', fireAt, endTime: lotEndTime };
}
