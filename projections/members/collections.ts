import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import { normalizeEmail } from '../../commands/members/events.ts';

/**
 * The member read model. PasswordHash is here for sign-in only; the profile query maps documents to
 * MemberDto through an allow-list, so the hash never leaves the service. Confirmation and reset keys are
 * not here at all: only the member's stream holds their hashes.
 */
export interface MemberDoc extends Doc {
  Id: number;
  UID: string;
  /** Trimmed and lower-case: sign-in, availability and resets look members up by it. */
  Email: string;
  PasswordHash: string;
  FirstName: string;
  LastName: string;
  Language: string;
  Phone: string;
  Validated: boolean;
  Roles: string[];
  DateRegistered: string;
  Created: string;
  /**
   * When the member's sessions were last ended (a password reset), RFC 3339; null (or absent, on documents
   * written before it existed) when never. A member token is accepted only if it was issued by a sign-in
   * that saw this same value (src/http/auth.ts).
   */
  SessionsValidFrom?: string | null;
}

/** The member accounts, and the typed accessor sign-in, sessions and jobs use. */
export const MEMBERS = 'members';
export const memberAccounts = (db: TenantScope) => db.collection<MemberDoc>(MEMBERS);
/** The account of an email address, matched as addresses are stored (trimmed, lower-case). */
export const memberByEmail = (db: TenantScope, email: string) => memberAccounts(db).findOne({ Email: normalizeEmail(email) });
