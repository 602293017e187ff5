// The route map of the service as it is: its features, projections and handlers' traces, rendered (docs/routes.md).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { features } from '../features/index.ts';
import { eventCatalog } from '../features/events.ts';
import { allProjections } from '../features/projections.ts';
import { renderRouteMap } from './render.ts';
import { traceOperations } from './trace.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** docs/routes.md as the sources say it now (reads and type-checks the project: seconds). */
export function currentRouteMap(): string {
  const traces = traceOperations(ROOT, new Set(eventCatalog.map((e) => e.type)));
  return renderRouteMap({ features, projections: allProjections({} as never), traces });
}
