import type { Decider } from '../../src/decider.ts';
import { contactEvents, type ContactEvent } from './events.ts';

export interface SubmitContactMessage {
  tenant: string;
  messageId: string;
  name: string;
  email: string;
  subject: string;
  message: string;
  lotId: number | null;
  memberId: number | null;
  at: string;
}

/** A contact message is its own stream: submitted once (a retried request with the same id appends nothing). */
export const contactDecider: Decider<boolean, SubmitContactMessage, ContactEvent> = {
  events: contactEvents,
  initialState: () => false,
  evolve: (_state, event) => event.type === 'ContactMessageSubmitted',
  decide: (command, submitted): ContactEvent[] => (submitted ? [] : [{ type: 'ContactMessageSubmitted', data: command }]),
};
