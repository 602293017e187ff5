// Round trips to PostgreSQL and Redis, counted per HTTP request: the pool wrappers count every statement or
// pipeline they send while a request is being answered, and the request's tally goes to /metrics
// (bidder_round_trips_total). Work outside a request (projections, jobs) is not counted.
import { AsyncLocalStorage } from 'node:async_hooks';

export type RoundTripEngine = 'postgres' | 'redis';

/** The round trips one request made so far. */
export interface RoundTrips {
  postgres: number;
  redis: number;
}

/** Tallies of requests answered: work a request started and that goes on after its answer (a timer) counts no more. */
const closed = new WeakSet<RoundTrips>();

const current = new AsyncLocalStorage<RoundTrips>();

/** A request's tally, none yet. */
export const newRoundTrips = (): RoundTrips => ({ postgres: 0, redis: 0 });

/**
 * Runs `fn` (the rest of a request's handling) counting into `tally`; again after a step that goes on from the
 * socket's events (a body read), which carry no request's context.
 */
export function countRoundTrips(tally: RoundTrips, fn: () => void): void {
  current.run(tally, fn);
}

/** The tally of the request being answered here, if any. */
export const requestRoundTrips = (): RoundTrips | undefined => current.getStore();

/** The request is answered: its tally as it stands, counting no more. */
export function closeRoundTrips(tally: RoundTrips): RoundTrips {
  closed.add(tally);
  return tally;
}

/** One round trip to `engine`, counted to the request being answered here (none outside a request). */
export function roundTrip(engine: RoundTripEngine): void {
  const tally = current.getStore();
  if (tally && !closed.has(tally)) tally[engine]++;
}

/** What the PostgreSQL pool wrapper needs of a pg.Pool and its clients. */
interface CountablePool {
  connect(...args: unknown[]): unknown;
  on(event: 'connect', listener: (client: { query(...args: unknown[]): unknown }) => void): unknown;
}

/**
 * Counts every statement a pool's clients send (one `query` call: one exchange, whatever it holds). A callback
 * waiting for a free connection runs in the caller's context, not in that of the request that freed it.
 */
export function countPostgresRoundTrips(pool: CountablePool): void {
  const connect = pool.connect.bind(pool);
  pool.connect = (...args: unknown[]) => {
    const callback = args[0];
    if (typeof callback !== 'function') return connect(...args);
    // The caller's tally (or none) carried to the callback by hand: AsyncResource.bind costs a tenth of a write's CPU.
    const tally = current.getStore();
    return connect((...results: unknown[]) =>
      tally === undefined ? current.exit(() => callback(...results)) : current.run(tally, () => callback(...results)),
    );
  };
  pool.on('connect', (client) => {
    const query = client.query.bind(client);
    client.query = (...args: unknown[]) => {
      roundTrip('postgres');
      return query(...args);
    };
  });
}

/** What the Redis wrapper needs of an ioredis client. */
interface CountableRedis {
  sendCommand(command: unknown, stream?: unknown): unknown;
}

/**
 * Counts the exchanges an ioredis client sends: a command on its own is one; a pipeline or MULTI (whose commands
 * share one write, `stream`) is one, however many commands it holds.
 */
export function countRedisRoundTrips<R extends CountableRedis>(redis: R): R {
  const send = redis.sendCommand.bind(redis);
  const pipelines = new WeakSet<object>();
  redis.sendCommand = (command: unknown, stream?: unknown) => {
    if (stream === undefined || stream === null) roundTrip('redis');
    else if (typeof stream === 'object' && !pipelines.has(stream)) {
      pipelines.add(stream);
      roundTrip('redis');
    }
    return send(command, stream);
  };
  return redis;
}
