// Phone verification's reactor, given events, then jobs: an issued code is texted by a job keyed by the code.
import { expect } from 'chai';
import { phoneVerificationCommands } from '../../commands/phone-verification/index.ts';
import type { PhoneVerificationEvent } from '../../commands/phone-verification/events.ts';
import { jobsAddedFor } from '../support/reactor-spec.ts';

const codeId = '5b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d';
const issued: PhoneVerificationEvent = {
  type: 'PhoneVerificationCodeIssued',
  data: {
    tenant: 'demo',
    memberId: 1,
    codeId,
    phone: '+31612345678',
    expiresAt: '2026-11-22T10:10:00.000Z',
    at: '2026-11-22T10:00:00.000Z',
  },
};

describe('phone verification reactor, given events, then jobs', () => {
  it('texts an issued code by a job keyed by the code (a replay asks for the same job)', async () => {
    const job = {
      name: 'send-phone-verification-code',
      data: { tenant: 'demo', memberId: 1, codeId },
      options: { jobId: `phone-code-demo-${codeId}`, attempts: 5, backoffMs: 2000 },
    };
    expect(await jobsAddedFor(phoneVerificationCommands, [issued], { times: 2 })).to.deep.equal([job, job]);
  });
});
