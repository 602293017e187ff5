import type { Decider } from '../../src/decider.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import { assertNever } from '../../src/assert-never.ts';
import { pushEvents, type PushEvent } from './events.ts';

/** Push subscriptions a member may hold at once: browsers and phones (409 beyond). */
export const MAX_PUSH_SUBSCRIPTIONS = 20;

interface Subscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  expirationTime: string | null;
  language: string | null;
  created: string;
}

/** A member's push subscriptions by id, and the id of each endpoint (one subscription per endpoint). */
export interface PushSubscriptionsState {
  byId: Map<string, Subscription>;
  byEndpoint: Map<string, string>;
}

export type PushCommand =
  | {
      type: 'Subscribe';
      tenant: string;
      memberId: number;
      /** A new id, used when the endpoint has no subscription yet. */
      subscriptionId: string;
      endpoint: string;
      endpointHost: string;
      p256dh: string;
      auth: string;
      expirationTime: string | null;
      language: string | null;
      at: string;
    }
  | { type: 'Unsubscribe'; tenant: string; memberId: number; subscriptionId: string; at: string }
  /** The push service answered 404 or 410 for this endpoint: the subscription is gone (unless it has another endpoint by now). */
  | { type: 'RemoveGone'; tenant: string; memberId: number; subscriptionId: string; endpoint: string; status: number; at: string }
  /** Another member of the house subscribed this endpoint: the browser is theirs now. */
  | { type: 'RemoveMoved'; tenant: string; memberId: number; endpoint: string; at: string };

/** What `PUT /v1/me/push-subscriptions` answers: the endpoint's subscription. */
export interface SubscriptionView {
  Id: string;
  Created: string;
}

export class PushSubscriptionsFullError extends ConflictError {
  constructor() {
    super('push-subscriptions-full', `A member holds at most ${MAX_PUSH_SUBSCRIPTIONS} push subscriptions; remove one first.`);
  }
}

const same = (a: Subscription, c: Extract<PushCommand, { type: 'Subscribe' }>) =>
  a.p256dh === c.p256dh && a.auth === c.auth && a.expirationTime === c.expirationTime && a.language === c.language;

/** A member's push subscriptions (one stream per member): at most 20, one per endpoint, removable by the member or the service. */
export const pushSubscriptionsDecider: Decider<PushSubscriptionsState, PushCommand, PushEvent, SubscriptionView | null> = {
  events: pushEvents,
  initialState: () => ({ byId: new Map(), byEndpoint: new Map() }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'PushSubscriptionAdded': {
        const { subscriptionId, endpoint, p256dh, auth, expirationTime, language, created } = event.data;
        state.byId.set(subscriptionId, { endpoint, p256dh, auth, expirationTime, language, created });
        state.byEndpoint.set(endpoint, subscriptionId);
        return state;
      }
      case 'PushSubscriptionRemoved': {
        const removed = state.byId.get(event.data.subscriptionId);
        if (removed) state.byEndpoint.delete(removed.endpoint);
        state.byId.delete(event.data.subscriptionId);
        return state;
      }
      default:
        return state;
    }
  },
  copy: (state) => ({ byId: new Map(state.byId), byEndpoint: new Map(state.byEndpoint) }),
  decide: (command, state) => {
    const { tenant, memberId, at } = command;
    switch (command.type) {
      case 'Subscribe': {
        const { endpoint, endpointHost, p256dh, auth, expirationTime, language } = command;
        const known = state.byEndpoint.get(endpoint);
        const current = known === undefined ? undefined : state.byId.get(known);
        if (current && same(current, command)) return [];
        if (!current && state.byId.size >= MAX_PUSH_SUBSCRIPTIONS) throw new PushSubscriptionsFullError();
        const subscriptionId = known ?? command.subscriptionId;
        const created = current?.created ?? at;
        const data = { tenant, memberId, subscriptionId, endpoint, endpointHost, p256dh, auth, expirationTime, language, created, at };
        return [{ type: 'PushSubscriptionAdded', data }];
      }
      case 'Unsubscribe': {
        const { subscriptionId } = command;
        if (!state.byId.has(subscriptionId)) throw new NotFoundError('No such push subscription.');
        return [{ type: 'PushSubscriptionRemoved', data: { tenant, memberId, subscriptionId, reason: 'member', status: null, at } }];
      }
      case 'RemoveGone': {
        const { subscriptionId, status } = command;
        if (state.byId.get(subscriptionId)?.endpoint !== command.endpoint) return [];
        return [{ type: 'PushSubscriptionRemoved', data: { tenant, memberId, subscriptionId, reason: 'gone', status, at } }];
      }
      case 'RemoveMoved': {
        const subscriptionId = state.byEndpoint.get(command.endpoint);
        if (subscriptionId === undefined) return [];
        return [{ type: 'PushSubscriptionRemoved', data: { tenant, memberId, subscriptionId, reason: 'moved', status: null, at } }];
      }
      default:
        return assertNever(command);
    }
  },
  view: (state, command) => {
    if (command.type !== 'Subscribe') return null;
    const id = state.byEndpoint.get(command.endpoint);
    return id === undefined ? null : { Id: id, Created: state.byId.get(id)!.created };
  },
};
