// What a message to a member that ended undelivered records on the member's stream (MessageDeliveryFailed): the
// network outbox's delivery job calls it (app/runtime.ts wires it), so the house sees the failure in its feed.
import type { EventLog } from '../../src/ports/event-log.ts';
import { runCommand } from '../../src/command-runner.ts';
import { memberDecider } from './decide.ts';
import { memberStreamId, type DeliveryFailureReason } from './events.ts';

export interface DeliveryFailure {
  tenant: string;
  memberId: number;
  deliveryId: string;
  channel: 'mail' | 'sms' | 'push';
  /** The outbox message's kind (`member-confirmation`, `password-reset`, `outbid`, …). */
  kind: string | undefined;
  reason: DeliveryFailureReason;
  /** When the delivery ended: the same on a rerun of its job, which so records it once. */
  at: string;
}

/** The template a message kind is named by in events (`member-confirmation` is the `confirmation` mail). */
export const templateOf = (kind: string | undefined): string =>
  kind === 'member-confirmation' ? 'confirmation' : kind && /^[a-z][a-z0-9-]{0,39}$/.test(kind) ? kind : 'other';

export function deliveryFailureRecorder(log: EventLog) {
  return async (failure: DeliveryFailure): Promise<void> => {
    const { tenant, memberId, deliveryId, channel, reason, at } = failure;
    await runCommand(log, memberStreamId(tenant, memberId), memberDecider, {
      type: 'RecordDeliveryFailed',
      failure: { tenant, memberId, deliveryId, channel, template: templateOf(failure.kind), reason, at },
    });
  };
}
