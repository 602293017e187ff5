import type { Projection, ReactorDeps } from '../../src/projector/projection.ts';

/** The projections (and reactors) of invoices (none yet). */
export function invoicesProjections(_deps: ReactorDeps): Projection[] {
  return [];
}
