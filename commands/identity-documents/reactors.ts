import type { Projection, Reactor, ReactorDeps } from '../../src/projector/projection.ts';
import type { JobQueue } from '../../src/ports/jobs.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';
import { identityDocumentsEvents } from './events.ts';
import { DELETE_IDENTITY_DOCUMENT_FILE, type DeleteFileJob } from './jobs.ts';

/**
 * Side effect of IdentityDocumentRemoved: the file is deleted by a job keyed by the document, so a replayed
 * event or a retried job deletes it once (and deleting an absent file is fine).
 */
export function identityDocumentFilesReactor(jobs: JobQueue): Reactor {
  return jobReactor(jobs, identityDocumentsEvents, {
    name: 'identity-document-files',
    on: 'IdentityDocumentRemoved',
    job: ({ tenant, memberId, documentId }) => ({
      name: DELETE_IDENTITY_DOCUMENT_FILE,
      data: { tenant, memberId, documentId } satisfies DeleteFileJob,
      options: { jobId: `identity-document-file-${tenant}-${documentId}`, attempts: 8, backoffMs: 2000 },
    }),
  });
}

/** The reactors of identity documents, registered by identityDocumentsCommands (commands/identity-documents/index.ts). */
export function identityDocumentsReactors(deps: ReactorDeps): Projection[] {
  return [identityDocumentFilesReactor(deps.jobs)];
}
