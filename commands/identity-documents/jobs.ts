import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';
import { DELETE_IDENTITY_DOCUMENT_FILE, deleteIdentityDocumentFileJob } from './files.ts';

/** The background jobs of identity documents, by job name. */
export function identityDocumentsJobs(services: Services): Record<string, JobProcessor> {
  return { [DELETE_IDENTITY_DOCUMENT_FILE]: deleteIdentityDocumentFileJob(services) };
}
