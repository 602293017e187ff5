import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { tenantSettings } from '../../projections/access/index.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { memberLanguage } from '../../projections/profile/index.ts';
import { messageLanguage, type MessageLanguage } from '../../src/text/mail.ts';
import { phoneStreamId, phoneVerificationEvents } from './events.ts';
import { PHONE_CODE_PURPOSE } from './rules.ts';

export const SEND_PHONE_CODE = 'send-phone-verification-code';

export interface PhoneCodeJobData {
  tenant: string;
  memberId: number;
  codeId: string;
}

/** The code's text, in the member's language. */
const CODE_TEXT: Record<MessageLanguage, (code: string, house: string) => string> = {
  en: (code, house) => `${code} is your ${house} verification code. It is valid for 10 minutes. Do not share it.`,
  sv: (code, house) => `${code} är din verifieringskod hos ${house}. Den gäller i 10 minuter. Dela den inte med någon.`,
  de: (code, house) => `${code} ist Ihr Bestätigungscode bei ${house}. Er ist 10 Minuten gültig. Geben Sie ihn nicht weiter.`,
};

/** The outbox id of a code's text: one text per code, however often the job runs. */
export const phoneCodeMessageId = (tenant: string, codeId: string) => `phone-code-${tenant}-${codeId}`;

/**
 * Texts the code: derived again from the code id (the job carries only ids), sent through the outbox under a
 * message id of the code, so a retried job texts once. A code that expired before the job ran is not sent.
 */
export function phoneCodeJob(services: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, memberId, codeId } = job.data as PhoneCodeJobData;
    const issued = (await services.log.readStream(phoneStreamId(tenant, memberId)))
      .map(phoneVerificationEvents.read)
      .find((e) => e.type === 'PhoneVerificationCodeIssued' && e.data.codeId === codeId);
    if (!issued || issued.type !== 'PhoneVerificationCodeIssued') throw new Error('phone verification code not found');
    if (Date.parse(issued.data.expiresAt) <= services.now().getTime()) return;
    const db = services.documents.forTenant(tenant);
    const [settings, member] = await Promise.all([
      tenantSettings(services.documents, tenant),
      memberAccounts(db).findById(String(memberId)),
    ]);
    const language = messageLanguage(member ? await memberLanguage(db, member) : null, settings);
    const code = services.keys.code(PHONE_CODE_PURPOSE, codeId);
    await services.outbox.send({
      id: phoneCodeMessageId(tenant, codeId),
      kind: 'phone-code',
      channel: 'sms',
      tenant,
      memberId,
      to: issued.data.phone,
      language,
      body: CODE_TEXT[language](code, settings?.Name ?? tenant),
    });
  };
}

/** The background jobs of phone verification, by job name. */
export function phoneVerificationJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [SEND_PHONE_CODE]: phoneCodeJob(services) };
}
