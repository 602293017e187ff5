// The identity documents' reactor, given events, then jobs: a removed document's file is deleted by a job keyed
// by the document; an uploaded one asks for nothing.
import { expect } from 'chai';
import { identityDocumentsCommands } from '../../commands/identity-documents/index.ts';
import type { IdentityDocumentsEvent } from '../../commands/identity-documents/events.ts';
import { jobsAddedFor } from '../support/reactor-spec.ts';

const documentId = '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const removed: IdentityDocumentsEvent = {
  type: 'IdentityDocumentRemoved',
  data: { tenant: 'demo', memberId: 1, documentId, at: '2026-11-22T10:00:00.000Z' },
};

describe('identity documents reactor, given events, then jobs', () => {
  it("deletes a removed document's file by a job keyed by the document (a replay asks for the same job)", async () => {
    const job = {
      name: 'delete-identity-document-file',
      data: { tenant: 'demo', memberId: 1, documentId },
      options: { jobId: `identity-document-file-demo-${documentId}`, attempts: 8, backoffMs: 2000 },
    };
    expect(await jobsAddedFor(identityDocumentsCommands, [removed], { times: 2 })).to.deep.equal([job, job]);
  });
});
