// The event types of the two streams and the JSON of each one's `data:`, by event name, so a handler of `bid` is
// given a bid's data: read from the generated unions of `{ id, event, data }` the OpenAPI document declares.
import type { components } from './schema.ts';

/** Event name → its data, from a stream's union of events. */
type EventsOf<U extends { event: string; data: unknown }> = { [E in U as E['event']]: E['data'] };

/** The auction stream's events (GET /v1/auctions/{id}/stream): `bid`, `extended`, `closed`, `live`, `reset`, `end`. */
export type AuctionStreamEvents = EventsOf<components['schemas']['AuctionStreamEvent']>;

/** The member stream's events (GET /v1/me/stream): `outbid`, `leading`, `won`, `lost`, `registration`, `reset`, `end`. */
export type MemberStreamEvents = EventsOf<components['schemas']['MyChangesStreamEvent']>;

/** `reset`: the stream could not go on from the position asked for; read what it shows again. */
export type ResetEvent = AuctionStreamEvents['reset'];
