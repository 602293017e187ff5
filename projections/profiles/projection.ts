import type { Projection, ReactorDeps } from '../../src/projector/projection.ts';

/** The projections (and reactors) of profile (none yet). */
export function profileProjections(_deps: ReactorDeps): Projection[] {
  return [];
}
