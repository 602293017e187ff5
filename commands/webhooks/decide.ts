import type { Decider } from '../../src/decider.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import { webhooksEvents, type WebhooksEvent } from './events.ts';

/** At most this many webhooks a tenant (BACKOFFICE.md). */
export const MAX_WEBHOOKS = 20;

export interface WebhooksState {
  /** The last id given (ids are never reused). */
  lastId: number;
  /** The webhooks not deleted, by id. */
  live: Map<number, { status: 'active' | 'disabled' }>;
}

export type WebhookCommand =
  | { type: 'RegisterWebhook'; tenant: string; url: string; types: string[] | null; description: string; secret: string; at: string }
  | { type: 'DeleteWebhook'; tenant: string; webhookId: number; at: string }
  | { type: 'EnableWebhook'; tenant: string; webhookId: number; at: string }
  | { type: 'ReplayWebhook'; tenant: string; webhookId: number; after: number; at: string }
  | { type: 'DisableWebhook'; tenant: string; webhookId: number; eventId: string; attempts: number; at: string };

const unknown = (id: number) => new NotFoundError(`No webhook ${id}.`);

export const webhooksDecider: Decider<WebhooksState, WebhookCommand, WebhooksEvent> = {
  events: webhooksEvents,
  initialState: () => ({ lastId: 0, live: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookRegistered':
        state.lastId = Math.max(state.lastId, event.data.webhookId);
        state.live.set(event.data.webhookId, { status: 'active' });
        return state;
      case 'WebhookDeleted':
        state.live.delete(event.data.webhookId);
        return state;
      case 'WebhookDisabled':
      case 'WebhookEnabled': {
        const hook = state.live.get(event.data.webhookId);
        if (hook) hook.status = event.type === 'WebhookDisabled' ? 'disabled' : 'active';
        return state;
      }
      case 'WebhookReplayRequested':
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RegisterWebhook': {
        if (state.live.size >= MAX_WEBHOOKS)
          throw new ConflictError('webhook-limit-reached', `A house has at most ${MAX_WEBHOOKS} webhooks; delete one first.`);
        const { type: _type, ...data } = command;
        return [{ type: 'WebhookRegistered', data: { ...data, webhookId: state.lastId + 1 } }];
      }
      case 'DeleteWebhook':
        if (!state.live.has(command.webhookId)) throw unknown(command.webhookId);
        return [{ type: 'WebhookDeleted', data: { tenant: command.tenant, webhookId: command.webhookId, at: command.at } }];
      case 'EnableWebhook': {
        const hook = state.live.get(command.webhookId);
        if (!hook) throw unknown(command.webhookId);
        // Enabling an active webhook changes nothing.
        return hook.status === 'active'
          ? []
          : [{ type: 'WebhookEnabled', data: { tenant: command.tenant, webhookId: command.webhookId, at: command.at } }];
      }
      case 'ReplayWebhook':
        if (!state.live.has(command.webhookId)) throw unknown(command.webhookId);
        return [
          {
            type: 'WebhookReplayRequested',
            data: { tenant: command.tenant, webhookId: command.webhookId, after: command.after, at: command.at },
          },
        ];
      case 'DisableWebhook': {
        // The delivery worker's decision; a webhook deleted or disabled meanwhile stays as it is.
        if (state.live.get(command.webhookId)?.status !== 'active') return [];
        const { type: _type, ...data } = command;
        return [{ type: 'WebhookDisabled', data }];
      }
    }
  },
};
