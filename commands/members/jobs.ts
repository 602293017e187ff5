import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { runCommand } from '../../src/command-runner.ts';
import { OneTimeKeys } from '../../src/security/keys.ts';
import { senderOf, tenantSettings } from '../../projections/access/index.ts';
import { memberLanguage, memberTimeZone } from '../../projections/profile/index.ts';
import { messageLanguage } from '../../src/text/mail.ts';
import { memberByEmail } from '../../projections/members/index.ts';
import { KEY_PURPOSE, loadMember, RESET_KEY_TTL_MS } from './handlers.ts';
import { memberDecider } from './decide.ts';
import { memberStreamId } from './events.ts';
import { confirmationMail, passwordResetMail } from './mails.ts';

/** Mails the confirmation key of a sign-up (added by the sign-up itself, and by a reactor after a crash). */
export const SEND_MEMBER_CONFIRMATION = 'send-member-confirmation';
/** The work of POST /v1/password-resets: look the account up, issue the key, mail it. */
export const ISSUE_PASSWORD_RESET = 'issue-password-reset';

export interface ConfirmationJob {
  tenant: string;
  memberId: number;
  keyId: string;
}
export interface PasswordResetJob {
  tenant: string;
  /** Normalised (trimmed, lower-case). */
  email: string;
  keyId: string;
  requestedAt: string;
}

/** One job per confirmation key: the sign-up and the reactor add the same id, so the mail goes once. */
export const confirmationJobId = (tenant: string, keyId: string) => `member-confirmation-${tenant}-${keyId}`;
export const passwordResetJobId = (tenant: string, keyId: string) => `password-reset-${tenant}-${keyId}`;
export const JOB_RETRIES = { attempts: 8, backoffMs: 2000 };

/** What an account mail says about its house, and who it is from. */
async function house(services: JobDeps, tenant: string) {
  const doc = await tenantSettings(services.documents, tenant);
  return { doc, name: doc?.Name ?? tenant, sender: senderOf(doc, tenant) };
}

/**
 * Keys are derived again from their id (the log and the job hold only the id); the outbox message is named
 * by the key id, so a retried job sends its mail once.
 */
export function sendConfirmationMail(services: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, memberId, keyId } = job.data as ConfirmationJob;
    const state = await loadMember(services.log, tenant, memberId);
    // Confirmed, removed, or a key that is not the current one: nothing to send.
    if (!state.exists || state.removed || state.confirmed || state.confirmationKey?.keyId !== keyId || !state.email) return;
    const { doc, name, sender } = await house(services, tenant);
    const mail = confirmationMail({
      language: messageLanguage(state.language, doc),
      houseName: name,
      firstName: state.firstName,
      email: state.email,
      key: services.keys.key(KEY_PURPOSE.confirmation, keyId),
      expiresAt: state.confirmationKey.expiresAt,
      timeZone: await memberTimeZone(services.documents.forTenant(tenant), memberId),
    });
    const id = confirmationJobId(tenant, keyId);
    await services.outbox.send({ id, kind: 'member-confirmation', channel: 'mail', tenant, memberId, to: state.email, sender, ...mail });
  };
}

export function issuePasswordReset(services: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, email, keyId, requestedAt } = job.data as PasswordResetJob;
    const member = await memberByEmail(services.documents.forTenant(tenant), email);
    if (!member) return; // no such account: nothing happens, and the caller was answered alike
    const key = services.keys.key(KEY_PURPOSE.reset, keyId);
    const now = services.now();
    await runCommand(services.log, memberStreamId(tenant, member.Id), memberDecider, {
      type: 'IssuePasswordResetKey',
      tenant,
      memberId: member.Id,
      keyId,
      keyHash: OneTimeKeys.hash(key),
      requestedAt,
      at: now.toISOString(),
      expiresAt: new Date(now.getTime() + RESET_KEY_TTL_MS).toISOString(),
    });
    const state = await loadMember(services.log, tenant, member.Id);
    // Voided by a newer request, or already used (a retry after the member reset the password): no mail.
    if (state.removed || state.resetKey?.keyId !== keyId || !state.email) return;
    const { doc, name, sender } = await house(services, tenant);
    const language = messageLanguage(await memberLanguage(services.documents.forTenant(tenant), member), doc);
    const mail = passwordResetMail({
      language,
      houseName: name,
      firstName: state.firstName,
      email: state.email,
      key,
      expiresAt: state.resetKey.expiresAt,
      timeZone: await memberTimeZone(services.documents.forTenant(tenant), member.Id),
    });
    const id = passwordResetJobId(tenant, keyId);
    await services.outbox.send({
      id,
      kind: 'password-reset',
      channel: 'mail',
      tenant,
      memberId: member.Id,
      to: state.email,
      sender,
      ...mail,
    });
  };
}

/** The background jobs of members, by job name. */
export function membersJobs(services: JobDeps): Record<string, JobProcessor> {
  return {
    [SEND_MEMBER_CONFIRMATION]: sendConfirmationMail(services),
    [ISSUE_PASSWORD_RESET]: issuePasswordReset(services),
  };
}
