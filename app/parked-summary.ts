import type { ProjectorRuntime } from '../src/projector/runtime.ts';
import type { ParkedSummary } from '../src/http/ops-routes.ts';
import type { Engines } from './engines.ts';

/**
 * What the projections and the job queue parked, read at most once a second (every /readyz probe and scrape asks):
 * the projections' events parked and held, the jobs parked by name.
 */
export function parkedSummary(projector: ProjectorRuntime, jobs: Engines['jobs']): () => Promise<ParkedSummary> {
  let last: { at: number; summary: Promise<ParkedSummary> } | null = null;
  const read = async (): Promise<ParkedSummary> => {
    const projections: ParkedSummary['projections'] = {};
    for (const [name, { parked, held }] of Object.entries(await projector.parked.counts()))
      if (parked + held > 0) projections[name] = { parked, held };
    return { projections, jobs: await jobs.parkedCounts() };
  };
  return () => {
    if (!last || Date.now() - last.at > 1000) {
      const summary = read();
      last = { at: Date.now(), summary };
      summary.catch(() => (last = null));
    }
    return last.summary;
  };
}
