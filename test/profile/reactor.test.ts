// The profiles' reactor, given events, then jobs: a requested VAT check is made by a job keyed by the check.
import { expect } from 'chai';
import { profileCommands } from '../../commands/profile/index.ts';
import type { ProfileEvent } from '../../commands/profile/events.ts';
import { jobsAddedFor } from '../support/reactor-spec.ts';

const checkId = '6c2d3e4f-5a61-4b7c-9d8e-0f1a2b3c4d5e';
const requested: ProfileEvent = {
  type: 'MemberVatCheckRequested',
  data: { tenant: 'demo', memberId: 1, at: '2026-11-22T10:00:00.000Z', checkId, vatNumber: 'NL123456789B01', companyName: 'Acme BV' },
};

describe('profile reactor, given events, then jobs', () => {
  it('checks a requested VAT number by a job keyed by the check (a replay asks for the same job)', async () => {
    const job = {
      name: 'check-vat-number',
      data: { tenant: 'demo', memberId: 1, checkId, vatNumber: 'NL123456789B01' },
      options: { jobId: `vat-check-demo-${checkId}`, attempts: 15, backoffMs: 2000 },
    };
    expect(await jobsAddedFor(profileCommands, [requested], { times: 2 })).to.deep.equal([job, job]);
  });
});
