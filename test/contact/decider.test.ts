/**
 * The contact decider: a contact-form message is its own stream, submitted once by its id.
 */
import { contactDecider, type SubmitContactMessage } from '../../commands/contact/decide.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const message: SubmitContactMessage = {
  tenant: 'demo',
  messageId: '8a5f7c1e-2d44-4b0e-9a5e-0c7c1b2d3e4f',
  name: 'Ann',
  email: 'ann@example.com',
  subject: 'Shipping',
  message: 'Do you ship to Norway?',
  lotId: 12,
  memberId: null,
  at,
};

describe('contact decider', () => {
  it('submits a message about a lot from a visitor who is not signed in', () => {
    spec(contactDecider)
      .given([])
      .when(message)
      .then([{ type: 'ContactMessageSubmitted', data: message }]);
  });

  it('submits a message from a signed-in member about no lot in particular', () => {
    const fromMember = { ...message, lotId: null, memberId: 3 };
    spec(contactDecider)
      .given([])
      .when(fromMember)
      .then([{ type: 'ContactMessageSubmitted', data: fromMember }]);
  });

  it('appends nothing when the same message is submitted again (a retried request)', () => {
    spec(contactDecider)
      .given([{ type: 'ContactMessageSubmitted', data: message }])
      .when({ ...message, at: '2026-11-22T10:00:05.000Z' })
      .thenNothingHappened();
  });

  it('keeps the first message when another one comes with the same message id', () => {
    spec(contactDecider)
      .given([{ type: 'ContactMessageSubmitted', data: message }])
      .when({ ...message, subject: 'Payment', message: 'Can I pay by card?' })
      .thenNothingHappened();
  });
});
