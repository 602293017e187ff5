// What an operator does with the events projections parked (`npm run parked`): list them, apply them again after a
// fix (retry), drop one for good (skip) or take a skip back (unskip).
import type { ParkedCount, ParkedEvent } from '../ports/read-models.ts';
import type { RecordedEvent } from '../ports/event-log.ts';
import { isRebuildCheckpoint } from '../read-models/rebuild.ts';
import type { ProjectorDeps } from './apply.ts';
import { Parking, type ParkingOptions } from './parking.ts';
import type { Projection, Reactor } from './projection.ts';

/** What one projection has set aside, by state. */
export type ParkedTally = Omit<ParkedCount, 'projection'>;

/** The outcome of a retry: what was set aside before, and what is still (an event that still fails is parked again). */
export interface RetryOutcome {
  projection: string;
  how: 'rebuilt' | 're-reacted' | 'nothing parked';
  before: ParkedTally;
  after: ParkedTally;
}

const NONE: ParkedTally = { parked: 0, held: 0, skipped: 0 };

export class ParkedOperations {
  constructor(
    private readonly deps: ProjectorDeps,
    private readonly projection: (name: string) => Projection,
    /** Rebuilds a projection and swaps it in (rebuild.ts), parking again what still fails. */
    private readonly rebuild: (name: string) => Promise<unknown>,
    private readonly options: ParkingOptions = {},
  ) {}

  /** What each projection has set aside, by name (those with nothing left out; rebuilds in progress too). */
  async counts(): Promise<Record<string, ParkedTally>> {
    const counts: Record<string, ParkedTally> = {};
    for (const { projection, ...tally } of await this.deps.documents.parkedCounts())
      if (!isRebuildCheckpoint(projection)) counts[projection] = tally;
    return counts;
  }

  /** The events each projection has set aside, in log order. */
  async list(): Promise<Array<{ projection: string; events: ParkedEvent[] }>> {
    const names = Object.keys(await this.counts());
    return Promise.all(names.map(async (projection) => ({ projection, events: await this.deps.documents.parkedEvents(projection) })));
  }

  /**
   * Applies again what a projection set aside (after a fix), but for the skipped events. A document projection or a
   * search index is rebuilt (a replay: its read model then equals one built from scratch, with what still fails parked
   * again); a reactor reacts to its parked and held events again in log order (its jobs are keyed: what was added
   * already adds nothing).
   */
  async retry(name: string): Promise<RetryOutcome> {
    const projection = this.projection(name);
    const before = (await this.counts())[name] ?? NONE;
    let how: RetryOutcome['how'] = 'nothing parked';
    if (before.parked + before.held > 0) {
      if (projection.kind === 'reactor') {
        // The running loop may have held one more event of a stream while this ran: that one is reacted to as well.
        for (let round = 0; round < 5 && (await this.reReact(projection)); round++);
        how = 're-reacted';
      } else {
        await this.rebuild(name);
        how = 'rebuilt';
      }
    }
    return { projection: name, how, before, after: (await this.counts())[name] ?? NONE };
  }

  /**
   * Drops a parked (or held) event for good: never applied, by this projection's loop or by a replay. Events held
   * behind it stay held until a retry applies them.
   */
  async skip(name: string, position: number): Promise<ParkedEvent> {
    const event = await this.find(name, position, ['parked', 'held']);
    const skipped: ParkedEvent = { ...event, state: 'skipped', lastAt: new Date().toISOString() };
    await this.deps.documents.park(name, [skipped]);
    this.deps.logger.warn(
      { projection: name, position, type: event.type, stream: event.streamId },
      'operator skipped a parked event: this projection never applies it',
    );
    return skipped;
  }

  /** Takes a skip back: the event is parked again, and applied at the next retry. */
  async unskip(name: string, position: number): Promise<ParkedEvent> {
    const event = await this.find(name, position, ['skipped']);
    const parked: ParkedEvent = { ...event, state: 'parked', lastAt: new Date().toISOString() };
    await this.deps.documents.park(name, [parked]);
    this.deps.logger.warn(
      { projection: name, position, type: event.type, stream: event.streamId },
      'operator took back the skip of an event',
    );
    return parked;
  }

  private async find(name: string, position: number, states: Array<ParkedEvent['state']>): Promise<ParkedEvent> {
    this.projection(name);
    const event = (await this.deps.documents.parkedEvents(name)).find((e) => e.position === position);
    if (!event || !states.includes(event.state))
      throw new Error(`${name} has no ${states.join(' or ')} event at position ${position} (npm run parked lists them)`);
    return event;
  }

  /**
   * A reactor's parked and held events reacted to again, in log order, with the tries and bisection of a batch: what
   * succeeds leaves the list, what fails again is parked again with its stream's later events held behind it.
   * Answers whether events are held behind no parked one of their stream afterwards (held meanwhile: go again).
   */
  private async reReact(reactor: Reactor): Promise<boolean> {
    const { documents, log } = this.deps;
    const rows = (await documents.parkedEvents(reactor.name)).filter((e) => e.state !== 'skipped');
    const wanted = new Set(rows.map((e) => e.position));
    const events: RecordedEvent[] = [];
    for (const stream of new Set(rows.map((e) => e.streamId)))
      events.push(...(await log.readStream(stream)).filter((e) => wanted.has(e.position)));
    events.sort((a, b) => a.position - b.position);
    const gone = rows.filter((row) => !events.some((e) => e.position === row.position)).map((row) => row.position);
    if (gone.length > 0) await documents.unpark(reactor.name, gone);
    if (events.length === 0) return false;
    // Not loaded: it starts empty, and holds only behind what fails again here.
    const parking = new Parking(documents, this.deps.logger, reactor.name, reactor.name, this.options);
    await parking.write(events, 0, events[events.length - 1].position, async (apply, held, _from, end) => {
      for (const event of apply) await reactor.react(event);
      await documents.park(reactor.name, held);
      await documents.unpark(
        reactor.name,
        apply.map((e) => e.position),
      );
      return end;
    });
    const left = (await documents.parkedEvents(reactor.name)).filter((e) => e.state !== 'skipped');
    const blocked = new Set(left.filter((e) => e.state === 'parked').map((e) => e.streamId));
    return left.some((e) => !blocked.has(e.streamId));
  }
}
