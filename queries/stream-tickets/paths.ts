// The streams a ticket may open (API.md operation 63), read from the `Path` a front end names.
import { ValidationError } from '../../src/errors.ts';
import { INT32_MAX } from '../../src/http/schemas.ts';

/** A stream a ticket opens: an auction's (60) or the caller's own (62), with its path in canonical form. */
export type StreamPath = { kind: 'auction'; auctionId: number; path: string } | { kind: 'member'; path: string };

export const MEMBER_STREAM_PATH = '/v1/me/stream';

/** The stream `text` names (a trailing slash aside), or a 400 `stream-path-invalid`. */
export function streamPathOf(text: string): StreamPath {
  const path = text.replace(/\/+$/, '');
  if (path === MEMBER_STREAM_PATH) return { kind: 'member', path };
  const match = /^\/v1\/auctions\/(\d{1,10})\/stream$/.exec(path);
  const id = match ? Number(match[1]) : 0;
  if (!match || id < 1 || id > INT32_MAX)
    throw new ValidationError(
      'Path must be /v1/auctions/{id}/stream (an int32 id) or /v1/me/stream.',
      [{ field: 'body.Path', message: 'must be /v1/auctions/{id}/stream or /v1/me/stream' }],
      { code: 'stream-path-invalid' },
    );
  return { kind: 'auction', auctionId: id, path: `/v1/auctions/${id}/stream` };
}
