import type { Projection, Reactor, ReactorDeps } from '../../src/projector/projection.ts';
import { asAppEvent } from '../../src/events/registry.ts';
import { confirmationJobId, JOB_RETRIES, SEND_MEMBER_CONFIRMATION, type ConfirmationJob } from './jobs.ts';

/**
 * MemberConfirmationKeyIssued → the job that mails the key. The sign-up adds the same job at once (so the
 * mail does not wait for the projector); this reactor makes sure of it should the process stop between the
 * append and that add. Keyed by the key id: a replay, or both adds, send one mail.
 */
export function confirmationMailReactor(deps: ReactorDeps): Reactor {
  return {
    kind: 'reactor',
    name: 'member-confirmation-mail',
    handles: ['MemberConfirmationKeyIssued'],
    async react(recorded) {
      const event = asAppEvent(recorded);
      if (event.type !== 'MemberConfirmationKeyIssued') return;
      const data: ConfirmationJob = { tenant: event.data.tenant, memberId: event.data.memberId, keyId: event.data.keyId };
      await deps.jobs.add(SEND_MEMBER_CONFIRMATION, data, { jobId: confirmationJobId(data.tenant, data.keyId), ...JOB_RETRIES });
    },
  };
}

/** The reactors of members (register with `...membersReactors(deps)` in src/projections.ts). */
export function membersReactors(deps: ReactorDeps): Projection[] {
  return [confirmationMailReactor(deps)];
}
