// The feed's events as it gives them: their ids (UUIDv5 of stream and revision), and their items' JSON, made once
// per event and passed on as the log stored the data when it can.
import { hash } from 'node:crypto';
import type { RecordedEvent, StoredEvent } from '../ports/event-log.ts';

/** The namespace of the feed's event ids (UUIDv5 of a stream and revision). */
const ID_NAMESPACE = Buffer.from('5f0b1c9e7a3d4e1fa2b6c8d0e4f61a2b', 'hex');
/** Where an id's input is written (the namespace first, then the stream and revision): no buffer made per id. */
const idInput = Buffer.alloc(4096);
ID_NAMESPACE.copy(idInput);

/** An event as a tenant's feed gives it: with its id, and its data without private fields. */
export interface FeedEvent {
  /** A UUID derived from the stream and revision: the same on every read, on every log engine. */
  id: string;
  type: string;
  version: number;
  streamId: string;
  revision: number;
  position: number;
  /** The position as the event's house sees it (opaque: src/events/position.ts). */
  token: string;
  created: string;
  data: Record<string, unknown>;
}

/**
 * A feed event made by the feed: its data kept as the bytes the log stored (passed on as they are) or as the object
 * it was read as; the object parsed only when asked, the item's JSON made once.
 */
export class FeedRecord implements FeedEvent {
  private parsed: Record<string, unknown> | undefined;
  private readonly stored: Buffer | undefined;
  private item: string | undefined;

  constructor(
    readonly id: string,
    readonly type: string,
    readonly version: number,
    readonly streamId: string,
    readonly revision: number,
    readonly position: number,
    readonly token: string,
    readonly created: string,
    data: { parsed: Record<string, unknown> } | { stored: Buffer },
  ) {
    if ('stored' in data) this.stored = data.stored;
    else this.parsed = data.parsed;
  }

  get data(): Record<string, unknown> {
    return (this.parsed ??= JSON.parse(this.stored!.toString('utf8')) as Record<string, unknown>);
  }

  get json(): string {
    return (this.item ??= `${itemHead(this)}${this.stored ? this.stored.toString('utf8') : JSON.stringify(this.parsed)}}`);
  }

  /** Adds the item's JSON to `parts` as bytes: around the stored data's own bytes, when it has them. */
  addJson(parts: Buffer[]): void {
    if (this.stored && this.item === undefined) parts.push(Buffer.from(itemHead(this), 'utf8'), this.stored, CLOSE_BRACE);
    else parts.push(Buffer.from(this.json, 'utf8'));
  }
}

/** The feed's record of an event, read or stored, with its data as the caller has it. */
export function feedRecord(
  event: RecordedEvent | StoredEvent,
  token: string,
  data: ConstructorParameters<typeof FeedRecord>[8],
): FeedEvent {
  const { streamId, revision } = event;
  return new FeedRecord(
    feedEventId(streamId, revision),
    event.type,
    event.version,
    streamId,
    revision,
    event.position,
    token,
    event.created,
    data,
  );
}

/** UUIDv5 (RFC 9562) of the stream and revision: an event's id in the feed, the same forever. */
export function feedEventId(streamId: string, revision: number): string {
  const name = `${streamId}\n${revision}`;
  const room = idInput.length - ID_NAMESPACE.length;
  // A name that may not have fit (UTF-8 is at most 3 bytes a UTF-16 unit) is hashed from a buffer of its own.
  const input =
    name.length * 3 <= room
      ? idInput.subarray(0, ID_NAMESPACE.length + idInput.write(name, ID_NAMESPACE.length, 'utf8'))
      : Buffer.concat([ID_NAMESPACE, Buffer.from(name, 'utf8')]);
  const hex = hash('sha1', input, 'hex');
  // The version (5) in the 13th digit, the variant (10xx) in the 17th.
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** An event as the feed's item: the paged answer's `Items`, the stream's `data:`, a webhook delivery's body. */
export function feedItem(e: FeedEvent) {
  return {
    Id: e.id,
    Type: e.type,
    Version: e.version,
    Stream: e.streamId,
    Revision: e.revision,
    Position: e.token,
    Time: e.created,
    Data: e.data,
  };
}

/**
 * The feed item's JSON up to its data's: with the data's JSON and `}`, the bytes `JSON.stringify(feedItem(e))` gives
 * (the id and position are the feed's own, hex and base64url: nothing to escape).
 */
function itemHead(e: FeedEvent): string {
  return `{"Id":"${e.id}","Type":${JSON.stringify(e.type)},"Version":${e.version},"Stream":${JSON.stringify(e.streamId)},"Revision":${e.revision},"Position":"${e.token}","Time":${JSON.stringify(e.created)},"Data":`;
}

const [OPEN_BRACKET, COMMA, CLOSE_BRACE, CLOSE_BRACKET] = ['[', ',', '}', ']'].map((text) => Buffer.from(text));

const madeJson = new WeakMap<FeedEvent, string>();
/** The feed item as JSON, made once per event however many streams and webhooks send it. */
export function feedItemJson(e: FeedEvent): string {
  if (e instanceof FeedRecord) return e.json;
  let json = madeJson.get(e);
  if (json === undefined) {
    json = `${itemHead(e)}${JSON.stringify(e.data)}}`;
    madeJson.set(e, json);
  }
  return json;
}

/**
 * The JSON array of the events' items (what `JSON.stringify(events.map(feedItem))` gives), as bytes to concatenate:
 * data the log stored is passed on as its own bytes, never made a string.
 */
export function feedItemsJson(events: readonly FeedEvent[]): Buffer[] {
  const parts = [OPEN_BRACKET];
  events.forEach((e, i) => {
    if (i > 0) parts.push(COMMA);
    if (e instanceof FeedRecord) e.addJson(parts);
    else parts.push(Buffer.from(feedItemJson(e), 'utf8'));
  });
  parts.push(CLOSE_BRACKET);
  return parts;
}
