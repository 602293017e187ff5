import type { Projection, ReactorDeps } from '../../src/projector/projection.ts';

/** The projections (and reactors) of identity documents (none yet). */
export function identityDocumentsProjections(_deps: ReactorDeps): Projection[] {
  return [];
}
