// Catching projections up to the log's head in large pages of their own event types: together at start (each
// page read once for all), one at a time before a loop goes live, or to a given position without loops.
import type { WriteTarget } from '../ports/read-models.ts';
import { UnitOfWork, type Projection } from './projection.ts';
import type { Progress } from './progress.ts';
import { applyBatch, applyParked, liveSearchWriter, PAGE_SIZE, readPage, type ProjectorDeps, type SearchWriter } from './apply.ts';
import type { Parking } from './parking.ts';

/** Documents a one-projection catch-up (upTo) keeps between pages. */
const UP_TO_DOCUMENTS = 50_000;

export class CatchUp {
  constructor(
    private readonly deps: ProjectorDeps,
    private readonly progress: Progress,
    /** Whether the projector is stopping (catch-up of running projections then ends after its current page). */
    private readonly stopping: () => boolean,
    /** Page size of run() (smaller in specs of the bounds themselves). */
    private readonly pageSize = PAGE_SIZE,
  ) {}

  /**
   * The projections this process runs, caught up together from the furthest behind of them to the head:
   * each page of their types is read (and parsed) once and each projection applies its own events of it,
   * written with its checkpoint like a live batch (an event one cannot apply parked: `parkingOf`). Only where the
   * log can filter by type; a failure stops it, and each projection's loop then catches up alone.
   */
  async together(projections: Projection[], parkingOf: (projection: Projection) => Parking): Promise<void> {
    if (!this.deps.log.readTypes || projections.length < 2) return;
    const types = [...new Set(projections.flatMap((p) => p.handles))];
    const at = new Map(projections.map((p) => [p, this.progress.positions.get(p.name) ?? 0]));
    const writers = new Map(projections.map((p) => [p, liveSearchWriter(this.deps, p)]));
    while (!this.stopping()) {
      const from = Math.min(...at.values());
      const { events, end } = await readPage(this.deps.log, types, from, PAGE_SIZE);
      if (end <= from) return;
      for (const projection of projections) {
        const position = at.get(projection)!;
        if (position >= end) continue;
        const mine = events.filter((e) => e.position > position && projection.handles.includes(e.type));
        const stored = await applyParked(
          parkingOf(projection),
          this.deps.documents,
          projection,
          mine,
          position,
          this.deps.documents.live(),
          {
            searchWriter: writers.get(projection),
            onChange: (handled, at) => {
              if (handled.length > 0) this.progress.changed(projection.name, at, handled);
            },
            end,
          },
        );
        at.set(projection, stored);
        this.progress.advance(projection.name, stored);
      }
      if (events.length < PAGE_SIZE) return;
    }
  }

  /**
   * Catches a running projection up from `from` in pages of its own types (where the log can filter them:
   * EventLog.readTypes; else nothing is done here and the live subscription reads everything), each page
   * written with its checkpoint like a live batch, parking what cannot be applied; returns where it stands, at
   * the head as of its last read.
   */
  async from(projection: Projection, from: number, searchWriter: SearchWriter, parking: Parking): Promise<number> {
    if (!this.deps.log.readTypes) return from;
    let position = from;
    while (!this.stopping()) {
      const { events, end } = await readPage(this.deps.log, projection.handles, position, PAGE_SIZE);
      if (end <= position) break;
      position = await applyParked(parking, this.deps.documents, projection, events, position, this.deps.documents.live(), {
        searchWriter,
        onChange: (handled, at) => {
          if (handled.length > 0) this.progress.changed(projection.name, at, handled);
        },
        end,
      });
      this.progress.advance(projection.name, position);
      if (events.length < PAGE_SIZE) break;
    }
    return position;
  }

  /**
   * Runs a projection from `from` until `until` into `target` (the live store, or a rebuild's fresh copy),
   * with no loop and telling nobody, parking what cannot be applied: catch-up when no loop runs, and rebuilds of
   * search projections and reactors.
   */
  async run(
    projection: Projection,
    from: number,
    until: number,
    target: WriteTarget | null,
    searchWriter: SearchWriter | undefined,
    parking: Parking,
    onProgress?: (position: number) => void,
  ): Promise<number> {
    let position = from;
    while (position < until) {
      const { events, end } = await readPage(this.deps.log, projection.handles, position, this.pageSize);
      if (end <= position) break;
      position = await applyParked(parking, this.deps.documents, projection, events, position, target, { searchWriter, end });
      onProgress?.(position);
    }
    return position;
  }

  /**
   * Runs a projection from `from` up to `to` exactly (events past `to` are left for the next run: the read
   * model as it was at `to`) into the live store, page by page, each page with its checkpoint like a live
   * batch; ends after the page in flight once `stop()` says so. Returns where it stands. Tools that run one
   * projection on their own (`npm run project`): nobody else writes its documents, so a document projection's
   * documents stay in one unit of work across pages (read once, as a rebuild keeps them, at most
   * UP_TO_DOCUMENTS), while each page's writes are still committed with its checkpoint.
   */
  async upTo(
    projection: Projection,
    from: number,
    to: number,
    options: { stop?: () => boolean; onProgress?: (position: number) => void } = {},
  ): Promise<number> {
    let position = from;
    const searchWriter = projection.kind === 'search' ? liveSearchWriter(this.deps, projection) : undefined;
    const target = this.deps.documents.live();
    const uow = projection.kind === 'documents' ? new UnitOfWork(target) : null;
    while (position < to && !options.stop?.()) {
      const page = await readPage(this.deps.log, projection.handles, position, this.pageSize);
      const events = page.events.filter((e) => e.position <= to);
      const end = Math.min(page.end, to);
      if (end <= position) break;
      if (projection.kind === 'documents' && uow) {
        for (const event of events) {
          if (!projection.handles.includes(event.type)) continue;
          uow.current = event;
          await projection.apply(event, uow);
        }
        await target.commit(uow.flush(), { projection: projection.name, expected: position, position: end });
        position = end;
        if (uow.size > UP_TO_DOCUMENTS) uow.forget(UP_TO_DOCUMENTS / 2);
      } else position = await applyBatch(projection, events, position, target, { searchWriter, end });
      options.onProgress?.(position);
    }
    return position;
  }
}
