import { z } from 'zod';
import { defineIntakeKind, type IntakeKind } from '../../src/intake-kind.ts';
import { runCommand } from '../../src/command-runner.ts';
import { isoDateTime, positiveId, tenantId } from '../../src/events/define.ts';
import { identityDocumentDecisions, identityDocumentsStreamId } from './events.ts';
import { identityDocumentsDecider } from './decide.ts';

/** The house's decision about a member's identity document (its back office, through intake). */
export const identityDocumentDecisionRecord = z.object({
  kind: z.literal('identityDocumentDecision'),
  tenant: tenantId,
  memberId: positiveId,
  documentId: z.uuid().transform((id) => id.toLowerCase()),
  status: z.enum(identityDocumentDecisions),
  at: isoDateTime,
});

/**
 * NDJSON intake records of identity documents (docs/intake.md). A decision equal to the document's status
 * appends nothing; one for an unknown (or removed) document is a line error.
 */
export const identityDocumentsIntake: IntakeKind[] = [
  defineIntakeKind('identityDocumentDecision', identityDocumentDecisionRecord, (deps, record) =>
    runCommand(
      deps.log,
      identityDocumentsStreamId(record.tenant, record.memberId),
      identityDocumentsDecider,
      {
        type: 'ReviewIdentityDocument',
        tenant: record.tenant,
        memberId: record.memberId,
        documentId: record.documentId,
        status: record.status,
        at: record.at,
      },
      { correlationId: deps.correlationId },
    ),
  ),
];
