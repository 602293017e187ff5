import type { Projection, Reactor, ReactorDeps } from '../../src/projector/projection.ts';
import { confirmationJobId, JOB_RETRIES, SEND_MEMBER_CONFIRMATION, type ConfirmationJob } from './jobs.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';
import { memberEvents } from './events.ts';

/**
 * MemberConfirmationKeyIssued → the job that mails the key. From the event, so a process stopping right after
 * the sign-up's append loses no mail; keyed by the key id, so a replay sends one mail.
 */
export function confirmationMailReactor(deps: ReactorDeps): Reactor {
  return jobReactor(deps.jobs, memberEvents, {
    name: 'member-confirmation-mail',
    on: 'MemberConfirmationKeyIssued',
    job: ({ tenant, memberId, keyId }) => ({
      name: SEND_MEMBER_CONFIRMATION,
      data: { tenant, memberId, keyId } satisfies ConfirmationJob,
      options: { jobId: confirmationJobId(tenant, keyId), ...JOB_RETRIES },
    }),
  });
}

/** The reactors of members, registered by membersCommands (commands/members/index.ts). */
export function membersReactors(deps: ReactorDeps): Projection[] {
  return [confirmationMailReactor(deps)];
}
