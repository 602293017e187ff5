import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import type { FileStore } from '../../src/ports/files.ts';
import { identityDocumentFileKey } from './events.ts';

export const DELETE_IDENTITY_DOCUMENT_FILE = 'delete-identity-document-file';

export interface DeleteFileJob {
  tenant: string;
  memberId: number;
  documentId: string;
}

export function deleteIdentityDocumentFileJob(deps: { files: FileStore }): JobProcessor {
  return async (job) => {
    const { tenant, memberId, documentId } = job.data as DeleteFileJob;
    await deps.files.delete(tenant, identityDocumentFileKey(memberId, documentId));
  };
}

/** The background jobs of identity documents, by job name. */
export function identityDocumentsJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [DELETE_IDENTITY_DOCUMENT_FILE]: deleteIdentityDocumentFileJob(services) };
}
