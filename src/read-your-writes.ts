// Read your writes: a command's caller waits (bounded) until the read models it reads include what it appended.
import type { EventLog } from './ports/event-log.ts';

export interface ReadYourWritesServices {
  log: EventLog;
  projector: {
    waitFor(position: number, names: string[], timeoutMs?: number): Promise<boolean>;
    /** Every projection of the service (run here or elsewhere): what read your writes derives its waits from. */
    readonly projections: readonly { kind: string; name: string; handles: readonly string[] }[];
  };
  logger: { warn(obj: object, msg: string): void; debug?(obj: object, msg: string): void };
  readYourWritesTimeoutMs: number;
}

/**
 * Read your writes: waits (bounded) until the named projections include the event at `position`, so the
 * caller's next read shows the change. A timeout answers anyway and is logged: the events are stored.
 */
export async function waitForProjections(services: ReadYourWritesServices, position: number, projections: string[]): Promise<void> {
  if (position <= 0) return;
  const reached = await services.projector.waitFor(position, projections, services.readYourWritesTimeoutMs);
  if (!reached) services.logger.warn({ position, projections }, 'projections did not catch up in time');
}

type ProjectionInfo = ReadYourWritesServices['projector']['projections'][number];
const readModelCache = new WeakMap<readonly ProjectionInfo[], Map<string, string[]>>();

/**
 * The projections a caller reads events of these types from: the document projections that handle any of them.
 * Not reactors (nothing to read there) nor the search index (flushed on an interval: waiting for it would cost
 * up to that interval, and no command answers from it).
 */
export function readModelsOf(projections: readonly ProjectionInfo[], eventTypes: Iterable<string>): string[] {
  const types = [...new Set(eventTypes)].sort();
  let cache = readModelCache.get(projections);
  if (!cache) readModelCache.set(projections, (cache = new Map()));
  const key = types.join(',');
  let names = cache.get(key);
  if (!names) {
    names = projections.filter((p) => p.kind === 'documents' && p.handles.some((t) => types.includes(t))).map((p) => p.name);
    cache.set(key, names);
  }
  return names;
}
