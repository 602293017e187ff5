/**
 * The round-trip tally (src/round-trips.ts): a statement counts to the request that sent it, also when the request
 * waited for a free connection that another request's work released, and a statement sent outside any request
 * counts to none.
 */
import { expect } from 'chai';
import { closeRoundTrips, countPostgresRoundTrips, countRoundTrips, newRoundTrips, type RoundTrips } from '../../src/round-trips.ts';

type Client = { query(...args: unknown[]): unknown };

/** A pool of one connection: a second `connect` waits until the first is released, then runs in the releaser's turn. */
function onePool() {
  const client: Client = { query: () => undefined };
  const waiting: Array<(error: null, client: Client, release: () => void) => void> = [];
  let busy = false;
  let onConnect: (client: Client) => void = () => undefined;
  const release = () => {
    const next = waiting.shift();
    if (next) next(null, client, release);
    else busy = false;
  };
  const pool = {
    connect(callback: (error: null, client: Client, release: () => void) => void) {
      if (busy) return void waiting.push(callback);
      busy = true;
      callback(null, client, release);
    },
    on(_event: 'connect', listener: (client: Client) => void) {
      onConnect = listener;
    },
  };
  countPostgresRoundTrips(pool as never);
  onConnect(client);
  return pool;
}

describe('round trips counted per request', () => {
  it('counts a statement to the request that waited for the connection, not to the one that released it', () => {
    const pool = onePool();
    const first = newRoundTrips();
    const second = newRoundTrips();
    let releaseFirst = () => undefined as void;
    countRoundTrips(first, () =>
      pool.connect((_e: null, client: Client, release: () => void) => {
        client.query('SELECT 1');
        releaseFirst = release;
      }),
    );
    countRoundTrips(second, () =>
      pool.connect((_e: null, client: Client, release: () => void) => {
        client.query('SELECT 2');
        client.query('SELECT 3');
        release();
      }),
    );
    // The first request's turn releases the connection: the second request's callback runs from there.
    countRoundTrips(first, () => releaseFirst());
    expect(closeRoundTrips(first)).to.deep.equal({ postgres: 1, redis: 0 } satisfies RoundTrips);
    expect(closeRoundTrips(second)).to.deep.equal({ postgres: 2, redis: 0 } satisfies RoundTrips);
  });

  it('counts a statement sent outside any request to none, even when a request released its connection', () => {
    const pool = onePool();
    const request = newRoundTrips();
    let releaseRequest = () => undefined as void;
    countRoundTrips(request, () =>
      pool.connect((_e: null, client: Client, release: () => void) => {
        client.query('SELECT 1');
        releaseRequest = release;
      }),
    );
    pool.connect((_e: null, client: Client, release: () => void) => {
      client.query('SELECT projection');
      release();
    });
    countRoundTrips(request, () => releaseRequest());
    expect(closeRoundTrips(request).postgres).to.equal(1);
  });
});
