import type { Projection, Reactor, ReactorDeps } from '../../src/projector/projection.ts';
import { confirmationJobId, JOB_RETRIES, SEND_MEMBER_CONFIRMATION, type ConfirmationJob } from './jobs.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';

/**
 * MemberConfirmationKeyIssued → the job that mails the key. The sign-up adds the same job at once (so the
 * mail does not wait for the projector); this reactor makes sure of it should the process stop between the
 * append and that add. Keyed by the key id: a replay, or both adds, send one mail.
 */
export function confirmationMailReactor(deps: ReactorDeps): Reactor {
  return jobReactor(deps.jobs, {
    name: 'member-confirmation-mail',
    on: 'MemberConfirmationKeyIssued',
    job: ({ tenant, memberId, keyId }) => ({
      name: SEND_MEMBER_CONFIRMATION,
      data: { tenant, memberId, keyId } satisfies ConfirmationJob,
      options: { jobId: confirmationJobId(tenant, keyId), ...JOB_RETRIES },
    }),
  });
}

/** The reactors of members (register with `...membersReactors(deps)` in src/projections.ts). */
export function membersReactors(deps: ReactorDeps): Projection[] {
  return [confirmationMailReactor(deps)];
}
