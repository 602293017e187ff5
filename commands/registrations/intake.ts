import { z } from 'zod';
import { runCommand } from '../../src/command-runner.ts';
import { isoDateTime, positiveId, tenantId } from '../../src/events/define.ts';
import { defineIntakeKind, type IntakeKind } from '../../src/intake-kind.ts';
import { registrationDecider } from './decide.ts';
import { registrationDecisions, registrationsStreamId } from './events.ts';

/**
 * The house's decision on a member's registration for an auction. A decision equal to the current status
 * appends nothing; a decision for a registration never requested is recorded as it is (the house registered,
 * or turned away, the member directly). The house's system is trusted: member and auction are not looked up.
 */
export const registrationDecisionRecord = z.object({
  kind: z.literal('registrationDecision'),
  tenant: tenantId,
  memberId: positiveId,
  auctionId: positiveId,
  status: z.enum(registrationDecisions),
  at: isoDateTime,
});

/**
 * A request the house received itself (by phone, at the counter, from an earlier system): recorded as
 * `pending` until a `registrationDecision`; a member already registered (in any status) appends nothing.
 */
export const registrationRequestRecord = z.object({
  kind: z.literal('registrationRequest'),
  tenant: tenantId,
  memberId: positiveId,
  auctionId: positiveId,
  at: isoDateTime,
});

/** NDJSON intake records of registrations (docs/intake.md). */
export const registrationsIntake: IntakeKind[] = [
  defineIntakeKind('registrationDecision', registrationDecisionRecord, (deps, r) =>
    runCommand(
      deps.log,
      registrationsStreamId(r.tenant, r.memberId, r.auctionId),
      registrationDecider,
      { type: 'DecideRegistration', tenant: r.tenant, memberId: r.memberId, auctionId: r.auctionId, status: r.status, at: r.at },
      { correlationId: deps.correlationId },
    ),
  ),
  defineIntakeKind('registrationRequest', registrationRequestRecord, (deps, r) =>
    runCommand(
      deps.log,
      registrationsStreamId(r.tenant, r.memberId, r.auctionId),
      registrationDecider,
      { type: 'RecordRegistrationRequest', tenant: r.tenant, memberId: r.memberId, auctionId: r.auctionId, at: r.at },
      { correlationId: deps.correlationId },
    ),
  ),
];
