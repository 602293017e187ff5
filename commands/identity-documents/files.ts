import type { Reactor } from '../../src/projector/projection.ts';
import type { JobProcessor, JobQueue } from '../../src/ports/jobs.ts';
import type { FileStore } from '../../src/ports/files.ts';
import { identityDocumentFileKey, identityDocumentsEvents } from './events.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';

export const DELETE_IDENTITY_DOCUMENT_FILE = 'delete-identity-document-file';

interface DeleteFileJob {
  tenant: string;
  memberId: number;
  documentId: string;
}

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

export function deleteIdentityDocumentFileJob(deps: { files: FileStore }): JobProcessor {
  return async (job) => {
    const { tenant, memberId, documentId } = job.data as DeleteFileJob;
    await deps.files.delete(tenant, identityDocumentFileKey(memberId, documentId));
  };
}
