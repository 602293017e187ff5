// The command handlers of members' accounts that operations, jobs and intake share: load a member, claim an email
// address, sign up (each runs the members' deciders on their streams).
import { randomInt } from 'node:crypto';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { CommandResult } from '../../src/decider.ts';
import { commandStreams, type CommandStreams } from '../../src/command-streams.ts';
import { ConflictError } from '../../src/errors.ts';
import { EMAIL_TAKEN_DETAIL, emailClaimDecider, MemberIdTaken, memberDecider, type MemberState } from './decide.ts';
import { memberEmailStreamId, memberStreamId, type MemberEvent, type MemberSignedUp } from './events.ts';
import type { EventOf } from '../../src/events/define.ts';

/** How long a confirmation key works (API.md: 24 hours). */
export const CONFIRMATION_KEY_TTL_MS = 24 * 60 * 60_000;
/** How long a password-reset key works (API.md: 1 hour). */
export const RESET_KEY_TTL_MS = 60 * 60_000;
/**
 * A claim of an email address whose member was never created is taken to be a sign-up still under way for
 * this long; after it, the sign-up is taken to have stopped, and the address can be claimed again.
 */
export const ORPHAN_CLAIM_GRACE_MS = 60_000;
/** The purposes one-time keys are derived for (src/security/keys.ts). */
export const KEY_PURPOSE = { confirmation: 'member-confirmation', reset: 'password-reset' } as const;

/** Member ids drawn at sign-up: int32, above the range back offices number their imported accounts in. */
export const SIGN_UP_ID_RANGE = { min: 1_000_000, max: 2_147_483_647 } as const;

type SignUpData = EventOf<typeof MemberSignedUp>['data'];

/**
 * The write side the account functions work on: an HTTP handler's `ctx.commands` (its correlation id bound),
 * or the event log itself (imports, jobs and tests; `options.correlationId` then marks the appends).
 */
export type AccountStreams = CommandStreams | EventLog;

const streamsOf = (streams: AccountStreams, options: { correlationId?: string } = {}): CommandStreams =>
  'appendToStream' in streams ? commandStreams(streams, options) : streams;

/** A member's stream folded into the decider's state (command side: the event log, never read models). */
export function loadMember(streams: AccountStreams, tenant: string, memberId: number): Promise<MemberState> {
  return streamsOf(streams).fold(memberStreamId(tenant, memberId), memberDecider);
}

/** A random member id nothing was ever appended to. */
async function freeMemberId(streams: CommandStreams, tenant: string): Promise<number> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const id = randomInt(SIGN_UP_ID_RANGE.min, SIGN_UP_ID_RANGE.max + 1);
    if ((await streams.readStream(memberStreamId(tenant, id))).length === 0) return id;
  }
  throw new Error('no free member id found');
}

/**
 * Claims an email address of a tenant for a member id (appended with the claim stream's expected revision,
 * so of two concurrent claims one wins). A claim held by another member is taken over only when that member
 * was removed, or when it is the claim of a sign-up that never created its member and is older than
 * ORPHAN_CLAIM_GRACE_MS: its member id is then closed first (MemberSignUpAbandoned, appended with
 * `no_stream`), so a late sign-up can never complete under it. Anything else is a 409.
 */
export async function claimEmail(
  accountStreams: AccountStreams,
  claim: { tenant: string; email: string; memberId: number; at: string; now: Date; ownClaim?: number | null },
  options: { correlationId?: string } = {},
): Promise<CommandResult<MemberEvent>> {
  const streams = streamsOf(accountStreams, options);
  const { tenant, email, memberId, at } = claim;
  const { holder } = await streams.fold(memberEmailStreamId(tenant, email), emailClaimDecider);
  let replacing: number | null = null;
  if (holder && holder.memberId !== memberId) {
    if (holder.memberId === claim.ownClaim) replacing = holder.memberId;
    else {
      let held = await loadMember(streams, tenant, holder.memberId);
      if (!held.exists && !held.abandoned && !held.removed) {
        if (claim.now.getTime() - Date.parse(holder.at) < ORPHAN_CLAIM_GRACE_MS) throw new ConflictError('email-taken', EMAIL_TAKEN_DETAIL);
        await streams.run(memberStreamId(tenant, holder.memberId), memberDecider, {
          type: 'AbandonSignUp',
          tenant,
          memberId: holder.memberId,
          email,
          at,
        });
        held = await loadMember(streams, tenant, holder.memberId);
      }
      if (held.exists && !held.removed) throw new ConflictError('email-taken', EMAIL_TAKEN_DETAIL);
      replacing = holder.memberId;
    }
  }
  return streams.run(memberEmailStreamId(tenant, email), emailClaimDecider, { type: 'ClaimEmail', tenant, email, memberId, at, replacing });
}

/**
 * Sign-up: draws a random member id, claims the email for it, then creates the member with `no_stream`
 * (with its confirmation key). Two sign-ups can never share an id (the member append needs an empty
 * stream) nor an email (the claim). Should the process stop between the two appends, the claim is orphaned;
 * a later sign-up with the address takes it over after the grace period (see claimEmail).
 */
export async function signUpMember(
  accountStreams: AccountStreams,
  input: Omit<SignUpData, 'memberId'> & { keyId: string; keyHash: string; now: Date },
  options: { correlationId?: string } = {},
): Promise<{ memberId: number; position: number; events: MemberEvent[] }> {
  const streams = streamsOf(accountStreams, options);
  const { keyId, keyHash, now, ...signUp } = input;
  const at = now.toISOString();
  let ownClaim: number | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    const memberId = await freeMemberId(streams, signUp.tenant);
    await claimEmail(streams, { tenant: signUp.tenant, email: signUp.email, memberId, at, now, ownClaim });
    ownClaim = memberId;
    try {
      const result = await streams.run(memberStreamId(signUp.tenant, memberId), memberDecider, {
        type: 'SignUp',
        signUp: { ...signUp, memberId },
        confirmationKey: { keyId, keyHash },
        at,
        expiresAt: new Date(now.getTime() + CONFIRMATION_KEY_TTL_MS).toISOString(),
      });
      return { memberId, position: result.position, events: result.events };
    } catch (error) {
      // The id was taken between the check and the append (or closed by a sign-up that took the address
      // over): claim again under a new id; claimEmail answers 409 if the address went to someone else.
      if (!(error instanceof MemberIdTaken)) throw error;
    }
  }
  throw new Error('sign-up found no free member id');
}
