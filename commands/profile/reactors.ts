import type { Projection, Reactor, ReactorDeps } from '../../src/projector/projection.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';
import { profileEvents } from './events.ts';
import { CHECK_VAT_NUMBER, VAT_CHECK_JOB, type VatCheckJobData } from './jobs.ts';

/** A VAT check for each MemberVatCheckRequested: a job keyed by the check id, so a replayed event adds nothing. */
export function vatCheckReactor(deps: ReactorDeps): Reactor {
  return jobReactor(deps.jobs, profileEvents, {
    name: 'profile-vat-check',
    on: 'MemberVatCheckRequested',
    job: ({ tenant, memberId, checkId, vatNumber }) => ({
      name: CHECK_VAT_NUMBER,
      data: { tenant, memberId, checkId, vatNumber } satisfies VatCheckJobData,
      options: { jobId: `vat-check-${tenant}-${checkId}`, ...VAT_CHECK_JOB },
    }),
  });
}

/** The reactors of profiles, registered by profileCommands (commands/profile/index.ts). */
export function profileReactors(deps: ReactorDeps): Projection[] {
  return [vatCheckReactor(deps)];
}
