// Readiness and lag of every projection, for /readyz and /metrics: where each stands (here, or its stored
// checkpoint when another process runs it) against the log's head.
import type { Projection } from './projection.ts';
import { storedCheckpoint, type ProjectorDeps } from './apply.ts';

export interface ProjectionStatus {
  /** Where it stands in the log (the engine's position: a count on the embedded log, bytes on EventStoreDB). */
  position: number;
  caughtUp: boolean;
  /** Age of the oldest event it has not applied yet; 0 when caught up. */
  lagSeconds: number;
  /** Whether this process runs it, or follows another process's stored checkpoint. */
  runs: 'here' | 'elsewhere';
  /** `failing`: its loop fails here (and is retried); `unreachable`: its index cannot be read (a search engine away). */
  error?: string;
  /** A search index's projection: its lag or its engine away degrades search only (/readyz stays ready). */
  search?: true;
}

/**
 * A projection is caught up when it (here, or its stored checkpoint, which another process may have moved)
 * has reached the log's head. Positions are compared, never subtracted: on EventStoreDB they are byte
 * offsets, so lag is told in seconds (the age of the oldest unapplied event). A search projection whose index
 * cannot be read (Typesense away) is told `unreachable`, from where it stands here (or from the start), instead
 * of failing the whole status: the other projections and the process still serve.
 */
export async function projectionStatus(
  deps: ProjectorDeps,
  projections: readonly Projection[],
  /** Where the projections this process runs stand in memory. */
  positions: ReadonlyMap<string, number>,
  /** The projections whose loop is failing here. */
  failures: ReadonlyMap<string, string>,
): Promise<Record<string, ProjectionStatus>> {
  const head = await deps.log.headPosition();
  const result: Record<string, ProjectionStatus> = {};
  for (const p of projections) {
    const local = positions.get(p.name);
    let unreachable = false;
    const stored = await storedCheckpoint(deps, p).catch((error: unknown) => {
      if (p.kind !== 'search') throw error;
      unreachable = true;
      return 0;
    });
    const position = Math.max(local ?? 0, stored);
    const caughtUp = position >= head;
    let lagSeconds = 0;
    if (!caughtUp) {
      const [next] = await deps.log.readAll({ fromPosition: position, maxCount: 1 });
      if (next) lagSeconds = Math.max(0, (Date.now() - Date.parse(next.created)) / 1000);
    }
    result[p.name] = {
      position,
      caughtUp,
      lagSeconds,
      runs: local === undefined ? 'elsewhere' : 'here',
      ...(unreachable ? { error: 'unreachable' } : failures.has(p.name) ? { error: 'failing' } : {}),
      ...(p.kind === 'search' ? { search: true as const } : {}),
    };
  }
  return result;
}
