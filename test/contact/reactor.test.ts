// The contact form's reactor, given events, then jobs: a submitted message is delivered by a job keyed by its id.
import { expect } from 'chai';
import { contactCommands } from '../../commands/contact/index.ts';
import type { ContactEvent } from '../../commands/contact/events.ts';
import { jobsAddedFor } from '../support/reactor-spec.ts';

const messageId = '8a5f7c1e-2d44-4b0e-9a5e-0c7c1b2d3e4f';
const submitted: ContactEvent = {
  type: 'ContactMessageSubmitted',
  data: {
    tenant: 'demo',
    messageId,
    name: 'Ann',
    email: 'ann@example.com',
    subject: 'Shipping',
    message: 'Do you ship to Norway?',
    lotId: 12,
    memberId: null,
    at: '2026-11-22T10:00:00.000Z',
  },
};

describe('contact reactor, given events, then jobs', () => {
  it('delivers a submitted message by a job keyed by the message (a replay asks for the same job)', async () => {
    const job = {
      name: 'deliver-contact-message',
      data: { tenant: 'demo', messageId },
      options: { jobId: `contact-${messageId}`, attempts: 8, backoffMs: 2000 },
    };
    expect(await jobsAddedFor(contactCommands, [submitted], { times: 2 })).to.deep.equal([job, job]);
  });
});
