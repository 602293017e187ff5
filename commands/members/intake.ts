import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { runCommand } from '../../src/command-runner.ts';
import type { CommandResult } from '../../src/decider.ts';
import { isoDateTime, languageCode, positiveId, tenantId } from '../../src/events/define.ts';
import { ConflictError } from '../../src/errors.ts';
import { defineIntakeKind, type IntakeDeps, type IntakeKind } from '../../src/intake-kind.ts';
import { hashPassword } from '../../src/security/passwords.ts';
import { claimEmail, loadMember } from './handlers.ts';
import { memberDecider } from './decide.ts';
import { memberStreamId, normalizeEmail } from './events.ts';

/**
 * An existing account brought in from the back office (the fields of docs/intake.md's `member` row). The
 * `member` kind runs `importMember`, which claims the email address as a sign-up does, so a sign-up can never
 * take an imported member's address.
 */
export const memberRecord = z.object({
  kind: z.literal('member'),
  tenant: tenantId,
  memberId: positiveId,
  uid: z.uuid().optional(),
  email: z.email().max(320),
  password: z.string().min(8).max(200).optional(),
  passwordHash: z.string().startsWith('scrypt$').optional(),
  firstName: z.string().max(200),
  lastName: z.string().max(200),
  language: languageCode,
  phone: z.string().max(50).default(''),
  signedUpAt: isoDateTime,
  confirmed: z.boolean().default(true),
  roles: z.array(z.enum(['bidder', 'consigner'])).default(['bidder']),
});
export type MemberRecord = z.infer<typeof memberRecord>;

/** Fills the hash field of an existing member's command: the decider never stores it again. */
const NOT_STORED = 'scrypt$not-stored';

/**
 * Imports one member: claims its address (unless the member was removed), then runs ImportMember. A record
 * equal to what the streams say appends nothing. An address held by another member, or a member id that
 * holds another address, is refused.
 */
export async function importMember(deps: Pick<IntakeDeps, 'log' | 'correlationId'>, record: MemberRecord): Promise<CommandResult> {
  const { log, correlationId } = deps;
  const email = normalizeEmail(record.email);
  const state = await loadMember(log, record.tenant, record.memberId);
  if (state.exists && state.email !== email)
    throw new ConflictError('member-email-mismatch', `Member ${record.memberId} exists with another email address.`);
  const isNew = !state.exists && !state.removed;
  if (isNew && !record.password && !record.passwordHash) throw new Error('a new member needs a password or passwordHash');
  // scrypt is slow: hashed only for a new account, and before the claim (a short gap between the appends).
  const passwordHash = record.passwordHash ?? (isNew ? await hashPassword(record.password!) : NOT_STORED);
  const claimed: CommandResult = state.removed
    ? { events: [], position: 0 }
    : await claimEmail(
        log,
        { tenant: record.tenant, email, memberId: record.memberId, at: new Date().toISOString(), now: new Date() },
        { correlationId },
      );
  const imported = await runCommand(
    log,
    memberStreamId(record.tenant, record.memberId),
    memberDecider,
    {
      type: 'ImportMember',
      signUp: {
        tenant: record.tenant,
        memberId: record.memberId,
        uid: record.uid ?? randomUUID(),
        email,
        passwordHash,
        firstName: record.firstName,
        lastName: record.lastName,
        language: record.language,
        phone: record.phone,
        signedUpAt: record.signedUpAt,
      },
      confirmed: record.confirmed,
      roles: record.roles,
      at: record.signedUpAt,
    },
    { correlationId },
  );
  return { events: [...claimed.events, ...imported.events], position: imported.position || claimed.position };
}

/** `memberRemoved`: the back office removed an account. */
export const memberRemovedRecord = z.object({ kind: z.literal('memberRemoved'), tenant: tenantId, memberId: positiveId, at: isoDateTime });
export type MemberRemovedRecord = z.infer<typeof memberRemovedRecord>;

/** NDJSON intake kinds of members (docs/intake.md). */
export const membersIntake: IntakeKind[] = [
  defineIntakeKind('member', memberRecord, (deps, record) => importMember(deps, record)),
  defineIntakeKind('memberRemoved', memberRemovedRecord, (deps, record) =>
    runCommand(
      deps.log,
      memberStreamId(record.tenant, record.memberId),
      memberDecider,
      { type: 'RemoveMember', ...record },
      { correlationId: deps.correlationId },
    ),
  ),
];
