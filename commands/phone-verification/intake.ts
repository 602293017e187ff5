import { z } from 'zod';
import { type IntakeKind, defineIntakeKind } from '../../src/intake-kind.ts';
import { runCommand } from '../../src/command-runner.ts';
import { isoDateTime, positiveId, tenantId } from '../../src/events/define.ts';
import { memberIsActive } from '../members/rules.ts';
import { intakePhone } from '../profile/rules.ts';
import { phoneVerificationDecider } from './decide.ts';
import { phoneStreamId } from './events.ts';

/**
 * `phoneVerified`: the back office brings a phone number the bidder already verified (an account moved from
 * another system). It counts while it is the profile's phone.
 */
export const phoneVerifiedRecord = z.object({
  kind: z.literal('phoneVerified'),
  tenant: tenantId,
  memberId: positiveId,
  phone: z.string().min(1).max(50),
  at: isoDateTime.optional(),
});

export const phoneVerificationIntake: IntakeKind[] = [
  defineIntakeKind('phoneVerified', phoneVerifiedRecord, async (deps, record) => {
    if (!(await memberIsActive(deps.log, record.tenant, record.memberId)))
      throw new Error(`member ${record.memberId} of ${record.tenant} does not exist`);
    const phone = intakePhone(record.phone, null, 'phone')!;
    return runCommand(
      deps.log,
      phoneStreamId(record.tenant, record.memberId),
      phoneVerificationDecider,
      { type: 'ImportVerifiedPhone', tenant: record.tenant, memberId: record.memberId, phone, at: record.at ?? new Date().toISOString() },
      { correlationId: deps.correlationId },
    );
  }),
];
