import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { runCommand } from '../../src/command-runner.ts';
import { tenantSettings } from '../../projections/access/index.ts';
import { profileDecider } from './decide.ts';
import { profileStreamId } from './events.ts';

export const CHECK_VAT_NUMBER = 'check-vat-number';

/**
 * Retries of a check that fails (VIES or a member state's service unavailable, a timeout): exponential from
 * 2 s, 15 tries, so an outage of up to about 9 hours is ridden out. Until a check answers, the profile's
 * `VatFree` is left as it was.
 */
export const VAT_CHECK_JOB = { attempts: 15, backoffMs: 2000 };

export interface VatCheckJobData {
  tenant: string;
  memberId: number;
  checkId: string;
  vatNumber: string;
}

/**
 * Checks the number with `services.vat` (read at each run: the configured checker) and records the result on
 * the profile stream. A checker that fails throws, and the job is retried; the decider drops a result that is
 * recorded already (a retried job) or no longer about the profile's number (it changed meanwhile).
 */
export function vatCheckJob(services: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, memberId, checkId, vatNumber } = job.data as VatCheckJobData;
    const settings = await tenantSettings(services.documents, tenant);
    if (!settings) throw new Error('tenant not found');
    const result = await services.vat.check(vatNumber);
    const country = result.country && /^[A-Z]{2}$/.test(result.country) ? result.country : null;
    const homeCountry = settings.Country && /^[A-Z]{2}$/.test(settings.Country) ? settings.Country : null;
    await runCommand(
      services.log,
      profileStreamId(tenant, memberId),
      profileDecider,
      { type: 'RecordVatCheck', tenant, memberId, checkId, result: { ...result, country }, homeCountry, at: services.now().toISOString() },
      { correlationId: `vat-check-${checkId}` },
    );
  };
}

/** The background jobs of profile, by job name. */
export function profileJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [CHECK_VAT_NUMBER]: vatCheckJob(services) };
}
