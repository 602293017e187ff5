import type { Reactor, ReactorDeps } from '../../src/projector/projection.ts';
import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { tenantSettings } from '../../projections/access/index.ts';
import { phoneStreamId, phoneVerificationEvents } from './events.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';

export const SEND_PHONE_CODE = 'send-phone-verification-code';
/** The purpose codes are derived for (src/security/keys.ts). */
export const PHONE_CODE_PURPOSE = 'phone';

export interface PhoneCodeJobData {
  tenant: string;
  memberId: number;
  codeId: string;
}

/** The outbox id of a code's text: one text per code, however often the job runs. */
export const phoneCodeMessageId = (tenant: string, codeId: string) => `phone-code-${tenant}-${codeId}`;

/** A text for each PhoneVerificationCodeIssued: a job keyed by the code id (a replayed event adds nothing). */
export function phoneCodeReactor(deps: ReactorDeps): Reactor {
  return jobReactor(deps.jobs, phoneVerificationEvents, {
    name: 'phone-verification-sms',
    on: 'PhoneVerificationCodeIssued',
    job: ({ tenant, memberId, codeId }) => ({
      name: SEND_PHONE_CODE,
      data: { tenant, memberId, codeId } satisfies PhoneCodeJobData,
      options: { jobId: `phone-code-${tenant}-${codeId}`, attempts: 5, backoffMs: 2000 },
    }),
  });
}

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
    const settings = await tenantSettings(services.documents, tenant);
    const house = settings?.Name ?? tenant;
    const code = services.keys.code(PHONE_CODE_PURPOSE, codeId);
    await services.outbox.send({
      id: phoneCodeMessageId(tenant, codeId),
      channel: 'sms',
      tenant,
      to: issued.data.phone,
      body: `${code} is your ${house} verification code. It is valid for 10 minutes. Do not share it.`,
    });
  };
}
