/**
 * The webhooks decider: a tenant's webhooks on one stream, registered (at most 20, ids never reused), deleted,
 * disabled by the delivery worker, enabled again and replayed by the back office.
 */
import { expect } from 'chai';
import { MAX_WEBHOOKS, webhooksDecider, type WebhookCommand } from '../../commands/webhooks/decide.ts';
import type { WebhooksEvent } from '../../commands/webhooks/events.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const later = '2026-11-23T08:30:00.000Z';
const tenant = 'demo';
const hook: { url: string; types: string[] | null; description: string; secret: string } = {
  url: 'https://erp.example-auctions.com/hooks/bidder',
  types: ['MemberSignedUp', 'AuctionRegistrationRequested'],
  description: 'ERP: new bidders and registrations',
  secret: 'whsec_0123456789abcdef',
};

const register = (overrides: Partial<typeof hook> = {}): WebhookCommand => ({ type: 'RegisterWebhook', tenant, ...hook, ...overrides, at });
const del = (webhookId: number): WebhookCommand => ({ type: 'DeleteWebhook', tenant, webhookId, at: later });
const enable = (webhookId: number): WebhookCommand => ({ type: 'EnableWebhook', tenant, webhookId, at: later });
const replay = (webhookId: number, after = 120): WebhookCommand => ({ type: 'ReplayWebhook', tenant, webhookId, after, at: later });
const disable = (webhookId: number): WebhookCommand => ({
  type: 'DisableWebhook',
  tenant,
  webhookId,
  eventId: 'evt-42',
  attempts: 8,
  at: later,
});

const registered = (webhookId: number, overrides: Partial<typeof hook> = {}): WebhooksEvent => ({
  type: 'WebhookRegistered',
  data: { tenant, webhookId, ...hook, ...overrides, at },
});
const deleted = (webhookId: number): WebhooksEvent => ({ type: 'WebhookDeleted', data: { tenant, webhookId, at: later } });
const enabled = (webhookId: number): WebhooksEvent => ({ type: 'WebhookEnabled', data: { tenant, webhookId, at: later } });
const replayRequested = (webhookId: number, after = 120): WebhooksEvent => ({
  type: 'WebhookReplayRequested',
  data: { tenant, webhookId, after, at: later },
});
const disabled = (webhookId: number): WebhooksEvent => ({
  type: 'WebhookDisabled',
  data: { tenant, webhookId, eventId: 'evt-42', attempts: 8, at: later },
});
/** Webhooks 1 to n, registered one after another. */
const hooks = (n: number) => Array.from({ length: n }, (_, i) => registered(i + 1));

describe('webhooks decider', () => {
  describe('RegisterWebhook', () => {
    it("registers a tenant's first webhook as webhook 1", () => {
      spec(webhooksDecider)
        .given([])
        .when(register())
        .then([registered(1)]);
    });

    it('registers a webhook for every event type (no types given)', () => {
      spec(webhooksDecider)
        .given([])
        .when(register({ types: null }))
        .then([registered(1, { types: null })]);
    });

    it('gives each new webhook the next id, and registers the same URL again as another webhook', () => {
      spec(webhooksDecider)
        .given(hooks(2))
        .when(register())
        .then([registered(3)]);
    });

    it("never gives a deleted webhook's id again", () => {
      spec(webhooksDecider)
        .given([...hooks(3), deleted(3)])
        .when(register())
        .then([registered(4)]);
      spec(webhooksDecider)
        .given([...hooks(2), deleted(1), deleted(2)])
        .when(register())
        .then([registered(3)]);
    });

    it('refuses a webhook beyond the 20 a tenant may have', () => {
      expect(MAX_WEBHOOKS).to.equal(20);
      spec(webhooksDecider)
        .given(hooks(MAX_WEBHOOKS - 1))
        .when(register())
        .then([registered(MAX_WEBHOOKS)]);
      spec(webhooksDecider)
        .given(hooks(MAX_WEBHOOKS))
        .when(register())
        .thenThrows(ConflictError, /at most 20 webhooks; delete one first/);
    });

    it('counts disabled webhooks against the 20, and not deleted ones', () => {
      spec(webhooksDecider)
        .given([...hooks(MAX_WEBHOOKS), disabled(4)])
        .when(register())
        .thenThrows(ConflictError, /at most 20 webhooks/);
      spec(webhooksDecider)
        .given([...hooks(MAX_WEBHOOKS), deleted(4)])
        .when(register())
        .then([registered(MAX_WEBHOOKS + 1)]);
    });
  });

  describe('DeleteWebhook', () => {
    it('deletes an active webhook and a disabled one', () => {
      spec(webhooksDecider)
        .given(hooks(2))
        .when(del(2))
        .then([deleted(2)]);
      spec(webhooksDecider)
        .given([...hooks(2), disabled(2)])
        .when(del(2))
        .then([deleted(2)]);
    });

    it('refuses a webhook that does not exist', () => {
      spec(webhooksDecider)
        .given(hooks(2))
        .when(del(7))
        .thenThrows(NotFoundError, /No webhook 7\./);
    });

    it('refuses a webhook that was deleted already', () => {
      spec(webhooksDecider)
        .given([...hooks(2), deleted(2)])
        .when(del(2))
        .thenThrows(NotFoundError, /No webhook 2\./);
    });
  });

  describe('EnableWebhook', () => {
    it('enables a disabled webhook', () => {
      spec(webhooksDecider)
        .given([...hooks(1), disabled(1)])
        .when(enable(1))
        .then([enabled(1)]);
    });

    it('appends nothing for a webhook that is active', () => {
      spec(webhooksDecider).given(hooks(1)).when(enable(1)).thenNothingHappened();
      spec(webhooksDecider)
        .given([...hooks(1), disabled(1), enabled(1)])
        .when(enable(1))
        .thenNothingHappened();
    });

    it('refuses a webhook that does not exist or was deleted', () => {
      spec(webhooksDecider)
        .given([])
        .when(enable(1))
        .thenThrows(NotFoundError, /No webhook 1\./);
      spec(webhooksDecider)
        .given([...hooks(1), disabled(1), deleted(1)])
        .when(enable(1))
        .thenThrows(NotFoundError, /No webhook 1\./);
    });
  });

  describe('ReplayWebhook', () => {
    it('asks an active webhook to get every event after a position again', () => {
      spec(webhooksDecider)
        .given(hooks(1))
        .when(replay(1))
        .then([replayRequested(1)]);
    });

    it('asks again from the start of the log, and for a disabled webhook too', () => {
      spec(webhooksDecider)
        .given([...hooks(1), replayRequested(1)])
        .when(replay(1, 0))
        .then([replayRequested(1, 0)]);
      spec(webhooksDecider)
        .given([...hooks(1), disabled(1)])
        .when(replay(1))
        .then([replayRequested(1)]);
    });

    it('refuses a webhook that does not exist or was deleted', () => {
      spec(webhooksDecider)
        .given(hooks(1))
        .when(replay(2))
        .thenThrows(NotFoundError, /No webhook 2\./);
      spec(webhooksDecider)
        .given([...hooks(1), deleted(1)])
        .when(replay(1))
        .thenThrows(NotFoundError, /No webhook 1\./);
    });
  });

  describe('DisableWebhook (the delivery worker, after the last retry of an event failed)', () => {
    it('disables an active webhook, noting the event and the attempts', () => {
      spec(webhooksDecider)
        .given(hooks(2))
        .when(disable(2))
        .then([disabled(2)]);
    });

    it('disables a webhook that was enabled again', () => {
      spec(webhooksDecider)
        .given([...hooks(1), disabled(1), enabled(1)])
        .when(disable(1))
        .then([disabled(1)]);
    });

    it('appends nothing for a webhook that is disabled already', () => {
      spec(webhooksDecider)
        .given([...hooks(1), disabled(1)])
        .when(disable(1))
        .thenNothingHappened();
    });

    it('appends nothing, and throws nothing, for a webhook deleted meanwhile or unknown', () => {
      spec(webhooksDecider)
        .given([...hooks(1), deleted(1)])
        .when(disable(1))
        .thenNothingHappened();
      spec(webhooksDecider).given([]).when(disable(3)).thenNothingHappened();
    });
  });
});
