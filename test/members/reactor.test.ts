// The members' reactor, given events, then jobs: a confirmation key issued is mailed by a job keyed by the key
// (test/members/sign-up.test.ts follows it through a sign-up to the mail).
import { expect } from 'chai';
import { membersCommands } from '../../commands/members/index.ts';
import type { MemberEvent } from '../../commands/members/events.ts';
import { jobsAddedFor } from '../support/reactor-spec.ts';

const keyId = '1e2d3c4b-5a69-4788-9a6b-5c4d3e2f1a0b';
const issued: MemberEvent = {
  type: 'MemberConfirmationKeyIssued',
  data: {
    tenant: 'demo',
    memberId: 1000001,
    keyId,
    keyHash: 'a'.repeat(64),
    issuedAt: '2026-11-22T10:00:00.000Z',
    expiresAt: '2026-11-23T10:00:00.000Z',
  },
};

describe('members reactor, given events, then jobs', () => {
  it('mails a confirmation key issued by a job keyed by the key (a replay asks for the same job)', async () => {
    const job = {
      name: 'send-member-confirmation',
      data: { tenant: 'demo', memberId: 1000001, keyId },
      options: { jobId: `member-confirmation-demo-${keyId}`, attempts: 8, backoffMs: 2000 },
    };
    expect(await jobsAddedFor(membersCommands, [issued], { times: 2 })).to.deep.equal([job, job]);
  });
});
