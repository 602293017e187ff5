// The bidder API's typed client: createBidderClient (openapi-fetch over the generated types), problems with their
// codes, and the streams opened through tickets with typed events.
export {
  createBidderClient,
  signIn,
  useAnonymousToken,
  type BidderClient,
  type BidderClientOptions,
  type StrictMethod,
  type TokenResponse,
} from './client.ts';
export { ok, problemOf, ProblemError, type Problem, type ProblemCode } from './problems.ts';
export {
  openAuctionStream,
  openMemberStream,
  openStream,
  StreamEndedError,
  streamTicket,
  type EventSourceConstructor,
  type EventSourceLike,
  type LiveStream,
  type StreamEnd,
  type StreamHandlers,
  type StreamOptions,
  type StreamPath,
  type StreamState,
  type StreamTicket,
} from './streams.ts';
export type { AuctionStreamEvents, MemberStreamEvents, ResetEvent } from './stream-events.ts';
export type { components, operations, paths } from './schema.ts';
