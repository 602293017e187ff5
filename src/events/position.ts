import { ValidationError } from '../errors.ts';

/**
 * The feed's positions as clients see them: opaque strings (base64url of `p:` and the log's position), the same
 * on the embedded log and EventStoreDB (whose commit positions the log port gives as numbers too). Clients give
 * them back as `after` and compare them only for equality.
 */
export function encodePosition(position: number): string {
  return Buffer.from(`p:${position}`, 'utf8').toString('base64url');
}

/** The log position of an opaque position, or null when it is not one the feed gave. */
export function decodePosition(text: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(text)) return null;
  const match = /^p:(0|[1-9]\d{0,15})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match) return null;
  const position = Number(match[1]);
  return Number.isSafeInteger(position) && encodePosition(position) === text ? position : null;
}

/**
 * A position a client gives back (`after`, `Last-Event-ID`, a replay's `After`): an empty text is the start (0);
 * one the feed did not give is a 400 naming the field (`query.after`, `header.Last-Event-ID`, `body.After`).
 */
export function clientPosition(text: string, field: string): number {
  if (text === '') return 0;
  const position = decodePosition(text);
  if (position === null)
    throw new ValidationError(`${field.slice(field.indexOf('.') + 1)} is not a position the feed gave.`, [
      { field, message: 'is not a known position' },
    ]);
  return position;
}
