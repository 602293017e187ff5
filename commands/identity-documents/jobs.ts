import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { DELETE_IDENTITY_DOCUMENT_FILE, deleteIdentityDocumentFileJob } from './files.ts';

/** The background jobs of identity documents, by job name. */
export function identityDocumentsJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [DELETE_IDENTITY_DOCUMENT_FILE]: deleteIdentityDocumentFileJob(services) };
}
