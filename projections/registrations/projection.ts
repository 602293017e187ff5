import type { Projection, ReactorDeps } from '../../src/projector/projection.ts';

/** The projections (and reactors) of registrations (none yet). */
export function registrationsProjections(_deps: ReactorDeps): Projection[] {
  return [];
}
