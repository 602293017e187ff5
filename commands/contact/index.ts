import type { FeaturePart } from '../../src/feature.ts';
import { contactEvents } from './events.ts';
import { contactCommandOperations } from './operations.ts';
import { contactDeliveryJob, contactDeliveryReactor, DELIVER_CONTACT } from './delivery.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of the contact form: what it registers (app/features/index.ts). */
export const contactCommands: FeaturePart = {
  events: contactEvents,
  operations: contactCommandOperations,
  projections: (deps) => [contactDeliveryReactor(deps.jobs)],
  jobs: (services) => ({ [DELIVER_CONTACT]: contactDeliveryJob(services) }),
};
