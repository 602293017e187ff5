import type { Projection, Reactor, ReactorDeps } from '../../src/projector/projection.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';
import { phoneVerificationEvents } from './events.ts';
import { SEND_PHONE_CODE, type PhoneCodeJobData } from './jobs.ts';

/** A text for each PhoneVerificationCodeIssued: a job keyed by the code id (a replayed event adds nothing). */
export function phoneCodeReactor(deps: ReactorDeps): Reactor {
  return jobReactor(deps.jobs, phoneVerificationEvents, {
    name: 'phone-verification-sms',
    on: 'PhoneVerificationCodeIssued',
    job: ({ tenant, memberId, codeId }) => ({
      name: SEND_PHONE_CODE,
      data: { tenant, memberId, codeId } satisfies PhoneCodeJobData,
      options: { jobId: `phone-code-${tenant}-${codeId}`, attempts: 5, backoffMs: 2000 },
    }),
  });
}

/** The reactors of phone verification, registered by phoneVerificationCommands (commands/phone-verification/index.ts). */
export function phoneVerificationReactors(deps: ReactorDeps): Projection[] {
  return [phoneCodeReactor(deps)];
}
