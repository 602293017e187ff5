// Parking: an event a projection cannot apply (a bug, a value its store refuses, an event of an older shape) is
// tried a bounded number of times, found by bisecting its batch, and set aside with the checkpoint, so the
// projection goes on. The later events of its stream are held behind it (set aside too, not applied): that stream
// reads as if the parked event and its followers had not happened, every other stream stays current.
import type { RecordedEvent } from '../ports/event-log.ts';
import type { DocumentStore, ParkedEvent } from '../ports/read-models.ts';
import { CheckpointConflictError, IncompleteCopyError } from '../ports/read-models.ts';
import { isTransientFault } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** Tries of a batch before the event that fails it is looked for and parked. */
export const PARK_TRIES = 5;
/** Wait after the first failed try, doubling after each (100, 200, 400, 800 ms: 1.5 s before the bisection). */
export const PARK_FIRST_BACKOFF_MS = 100;

export interface ParkingOptions {
  /** Tries of a batch (PARK_TRIES). */
  tries?: number;
  /** Wait after the first failed try (PARK_FIRST_BACKOFF_MS). */
  backoffMs?: number;
}

/**
 * Writes one batch: `apply` applied, `held` stored as set aside, the checkpoint moved from `expected` to `end`
 * (applyBatch with its target); answers where the checkpoint stands.
 */
export type ParkingWrite = (apply: RecordedEvent[], held: ParkedEvent[], expected: number, end: number) => Promise<number>;

/**
 * Whether a failure may be an event's fault: an engine away, a full disk, a moved checkpoint or a rebuild's copy left
 * part-written never are.
 */
export function isParkable(error: unknown): boolean {
  return !(error instanceof CheckpointConflictError) && !(error instanceof IncompleteCopyError) && !isTransientFault(error);
}

const MAX_ERROR = 500;

/** An error as it is kept and logged: its message alone, on one line, bounded. */
export function parkedError(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return message.length > MAX_ERROR ? `${message.slice(0, MAX_ERROR)}…` : message || 'error without a message';
}

/**
 * What one projection has set aside under one checkpoint's name (its own, or its rebuild's), as the batches of one
 * loop see it. Loaded from the store, and again whenever a batch would hold an event (an operator's skip or retry,
 * made by another process, may have freed its stream).
 */
export class Parking {
  /** Streams with an event parked or held: their later events are held, behind the position named. */
  private readonly blocked = new Map<string, number>();
  /** Positions set aside already (a replay leaves them as they are), with their state. */
  private readonly known = new Map<number, ParkedEvent['state']>();
  private readonly tries: number;
  private readonly backoffMs: number;

  constructor(
    private readonly documents: DocumentStore,
    private readonly logger: Logger,
    /** The projection's name, as logged. */
    readonly projection: string,
    /** The checkpoint's name the events are kept under (a rebuild's differs). */
    readonly checkpoint: string = projection,
    options: ParkingOptions & { stopping?: () => boolean } = {},
  ) {
    this.tries = Math.max(1, options.tries ?? PARK_TRIES);
    this.backoffMs = options.backoffMs ?? PARK_FIRST_BACKOFF_MS;
    this.stopping = options.stopping ?? (() => false);
  }

  private readonly stopping: () => boolean;

  /** Reads what is set aside; a rebuild also leaves out what the operator skipped on the live projection. */
  async load(): Promise<this> {
    const events = await this.documents.parkedEvents(this.checkpoint);
    if (this.checkpoint !== this.projection)
      events.push(...(await this.documents.parkedEvents(this.projection)).filter((e) => e.state === 'skipped'));
    this.blocked.clear();
    this.known.clear();
    this.note(events);
    return this;
  }

  /** Whether anything is set aside (a loop with nothing skips the look at each batch's streams). */
  get empty(): boolean {
    return this.known.size === 0;
  }

  /** Whether a batch has an event of a stream held here, or one set aside already (it then goes through split()). */
  holds(events: readonly RecordedEvent[]): boolean {
    return !this.empty && events.some((e) => this.blocked.has(e.streamId) || this.known.has(e.position));
  }

  /**
   * The events of a batch to apply, and those to store as held (a stream with a parked event). Events set aside
   * already are in neither: a replay of them changes nothing.
   */
  async split(events: readonly RecordedEvent[]): Promise<{ apply: RecordedEvent[]; held: ParkedEvent[] }> {
    if (this.empty) return { apply: [...events], held: [] };
    if (events.some((e) => this.blocked.has(e.streamId) && !this.known.has(e.position))) await this.load();
    const apply: RecordedEvent[] = [];
    const held: ParkedEvent[] = [];
    const now = new Date().toISOString();
    for (const event of events) {
      if (this.known.has(event.position)) continue;
      const behind = this.blocked.get(event.streamId);
      if (behind === undefined) apply.push(event);
      else held.push(entry(event, 'held', `held behind the event parked at ${behind}`, 0, now));
    }
    return { apply, held };
  }

  /**
   * Writes `events` (those the projection handles, in log order) with the checkpoint from `expected` to `end`: on a
   * failure that may be an event's, tried up to `tries` times with a doubling wait, then bisected to the event that
   * fails, which is parked (its stream's later events held) while the others are applied. Other failures are thrown.
   */
  async write(events: RecordedEvent[], expected: number, end: number, write: ParkingWrite): Promise<number> {
    let error: unknown;
    for (let attempt = 1; attempt <= this.tries; attempt++) {
      if (attempt > 1) {
        if (this.stopping()) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.backoffMs * 2 ** (attempt - 2)));
      }
      try {
        return await this.once(events, expected, end, write);
      } catch (e) {
        if (!isParkable(e)) throw e;
        error = e;
      }
    }
    return this.isolate(events, expected, end, write, this.tries, error);
  }

  /** One try of a batch. */
  private async once(events: RecordedEvent[], expected: number, end: number, write: ParkingWrite): Promise<number> {
    const { apply, held } = await this.split(events);
    const position = await write(apply, held, expected, end);
    this.note(held);
    this.logHeld(held);
    return position;
  }

  /** A batch that failed `failed` times as a whole: halved until the event that fails is alone, which is parked. */
  private async isolate(events: RecordedEvent[], expected: number, end: number, write: ParkingWrite, failed: number, error: unknown) {
    const { apply, held } = await this.split(events);
    if (apply.length <= 1) {
      const parked = apply.map((event) => entry(event, 'parked', parkedError(error), failed, new Date().toISOString()));
      const position = await write([], [...parked, ...held], expected, end);
      this.note([...parked, ...held]);
      for (const p of parked) this.logParked(p);
      this.logHeld(held);
      return position;
    }
    const last = apply[Math.ceil(apply.length / 2) - 1].position;
    const halves = [events.filter((e) => e.position <= last), events.filter((e) => e.position > last)];
    let position = expected;
    for (const [i, half] of halves.entries()) {
      const to = i === 0 ? last : end;
      try {
        position = await this.once(half, position, to, write);
      } catch (e) {
        if (!isParkable(e)) throw e;
        position = await this.isolate(half, position, to, write, failed + 1, e);
      }
    }
    return position;
  }

  private note(events: readonly ParkedEvent[]): void {
    for (const e of events) {
      this.known.set(e.position, e.state);
      if (e.state !== 'skipped' && !this.blocked.has(e.streamId)) this.blocked.set(e.streamId, e.position);
    }
  }

  /** The one error line of a parked event: where it is and what failed, never its data or tenant. */
  private logParked(e: ParkedEvent): void {
    this.logger.error(
      { projection: this.projection, position: e.position, type: e.type, stream: e.streamId, attempts: e.attempts, err: e.error },
      'projection parked an event it cannot apply; later events of its stream are held (npm run parked)',
    );
  }

  private logHeld(held: readonly ParkedEvent[]): void {
    for (const e of held)
      this.logger.info(
        { projection: this.projection, position: e.position, type: e.type, stream: e.streamId },
        'projection held an event behind a parked one of its stream',
      );
  }
}

function entry(event: RecordedEvent, state: ParkedEvent['state'], error: string, attempts: number, at: string): ParkedEvent {
  return {
    position: event.position,
    type: event.type,
    streamId: event.streamId,
    tenant: event.metadata?.tenant ?? '',
    state,
    error,
    attempts,
    firstAt: at,
    lastAt: at,
  };
}
