import type { Projection, ReactorDeps } from '../../src/projector/projection.ts';

/** The projections (and reactors) of notifications (none yet). */
export function notificationsProjections(_deps: ReactorDeps): Projection[] {
  return [];
}
