import { createHash, randomUUID } from 'node:crypto';
import type { ExpectedRevision, NewEvent } from '../../ports/event-log.ts';

/** Namespace of the service's event ids (a fixed random UUID, so the ids do not collide with other name-based ids). */
const NAMESPACE = Buffer.from('8f1c2a6e4b7d4e0f9a3c5d2b1e6f7a80', 'hex');

/** A name-based UUID (RFC 4122 version 5: SHA-1 of namespace and name). */
function uuidV5(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The event ids of one append. EventStoreDB treats an append whose ids equal the events already written
 * after the expected revision as a retry of that append: it answers success and writes nothing.
 *
 * - With an exact expected revision (a number or `no_stream`) the id is derived from the stream, the
 *   expected revision, the event's index in the append and a hash of its content. Retrying the same append
 *   (a lost answer, a client reconnect) is then idempotent, while a different decision taken on the same
 *   stale revision gets other ids and is refused with a wrong expected version, as it must be. Ids from
 *   stream, revision and index alone would make the server take that second, different append for a retry
 *   of the first and answer success without writing it.
 * - With `any` or `stream_exists` there is no revision to tie a retry to: EventStoreDB then looks the first
 *   id up among the stream's recent events, so two equal appends would be merged. These get random ids.
 */
export function eventIds(streamId: string, expected: ExpectedRevision, events: NewEvent[]): string[] {
  if (expected === 'any' || expected === 'stream_exists') return events.map(() => randomUUID());
  return events.map((event, index) => {
    const content = createHash('sha256')
      .update(JSON.stringify([event.type, event.version, event.data, event.metadata]))
      .digest('hex');
    return uuidV5(`${streamId}\n${String(expected)}\n${index}\n${content}`);
  });
}
