/**
 * A store that cannot be reached (PostgreSQL restarting, EventStoreDB, MongoDB or Typesense away, a refused or lost
 * connection, a bounded wait run out)
 * answers 503 problem+json with Retry-After, never 500, and shows nothing of the engine; any other failure stays
 * a 500. The real restart is test/roles/postgres-faults.test.ts; here each kind of error is thrown in place of the
 * log's append.
 */
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { DeadlineExceededError, UnavailableError, WrongExpectedVersionError } from '@eventstore/db-client';
import { MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { ServerError } from 'typesense/lib/Typesense/Errors/index.js';
import { isEngineUnreachable } from '../../src/errors.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

/** The driver's pool errors (`lib/cmap/errors.js`), which its index does not export. */
type PoolError = new (pool: { address: string; serverError?: Error }) => Error;
const { PoolClearedError, PoolClearedOnNetworkError } = createRequire(import.meta.url)('mongodb/lib/cmap/errors.js') as Record<
  'PoolClearedError' | 'PoolClearedOnNetworkError',
  PoolError
>;

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

/** What node-postgres and Node's sockets throw when PostgreSQL is down or going away. */
const UNREACHABLE: Record<string, unknown> = {
  'admin shutdown (57P01)': withCode('terminating connection due to administrator command', '57P01'),
  'starting up (57P03)': withCode('the database system is starting up', '57P03'),
  'connection failure (08006)': withCode('connection failure', '08006'),
  'statement time-out (57014)': withCode('canceling statement due to statement timeout', '57014'),
  'lock time-out (55P03)': withCode('canceling statement due to lock timeout', '55P03'),
  'idle transaction ended (25P03)': withCode('terminating connection due to idle-in-transaction timeout', '25P03'),
  'idle session ended (57P05)': withCode('terminating connection due to idle-session timeout', '57P05'),
  'refused (ECONNREFUSED)': withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
  'refused on every address (AggregateError)': new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')]),
  'reset (ECONNRESET)': withCode('read ECONNRESET', 'ECONNRESET'),
  'lost mid-query': new Error('Connection terminated unexpectedly'),
  'pool wait run out': new Error('timeout exceeded when trying to connect'),
  'client wait run out': new Error('Query read timeout'),
  'a client already broken': new Error('Client has encountered a connection error and is not queryable'),
  'wrapped as a cause': new Error('append failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }),
  // The card's engines, as their clients throw when the server is away.
  'EventStoreDB unavailable': new UnavailableError(undefined, '14 UNAVAILABLE: No connection established'),
  'EventStoreDB past its deadline': new DeadlineExceededError(undefined, '4 DEADLINE_EXCEEDED: Deadline exceeded'),
  'MongoDB selecting no server': new MongoServerSelectionError('Server selection timed out after 5000 ms', {} as never),
  'MongoDB connection lost': new MongoNetworkError('connection 3 to 10.0.0.5:27017 closed'),
  'MongoDB no answer within the socket bound': new MongoNetworkTimeoutError('connection 4 to 10.0.0.5:27017 timed out'),
  // An operation under way when the monitor's heartbeat timed out (`lib/cmap/connection_pool.js`).
  'MongoDB pool cleared on a network error': new PoolClearedOnNetworkError({ address: '10.0.0.5:27017' }),
  'MongoDB pool cleared': new PoolClearedError({ address: '10.0.0.5:27017' }),
  // What the server labels: a write to a node that stepped down, a transaction aborted under it.
  'MongoDB retryable write (label)': new MongoServerError({
    message: 'not primary',
    code: 10107,
    codeName: 'NotWritablePrimary',
    errorLabels: ['RetryableWriteError'],
  }),
  'MongoDB transient transaction (label)': new MongoServerError({
    message: 'Transaction with { txnNumber: 7 } has been aborted.',
    code: 251,
    codeName: 'NoSuchTransaction',
    errorLabels: ['TransientTransactionError'],
  }),
  'MongoDB read on a node recovering (code)': new MongoServerError({ message: 'node is recovering', code: 11602 }),
  'MongoDB past its maxTimeMS (code)': new MongoServerError({ message: 'operation exceeded time limit', code: 50 }),
  'Typesense node 503': new ServerError('Request failed with HTTP code 503 | Server said: Not Ready or Lagging', '', 503),
  'Typesense refused (axios)': withCode('connect ECONNREFUSED 127.0.0.1:8108', 'ECONNREFUSED'),
  'Typesense timed out (axios)': withCode('timeout of 3000ms exceeded', 'ECONNABORTED'),
};

describe('a store that cannot be reached', () => {
  it('is told from other failures by its error: socket codes, PostgreSQL’s connection states, node-postgres’s messages', () => {
    for (const [name, error] of Object.entries(UNREACHABLE)) expect(isEngineUnreachable(error), name).to.equal(true);
    const others = [
      new Error('boom'),
      withCode('duplicate key value', '23505'),
      withCode('syntax error', '42601'),
      new WrongExpectedVersionError(undefined, { streamName: 's', expected: 0n, current: 1n } as never),
      new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 }),
      new MongoServerError({ message: 'E11000 duplicate key error', code: 11000, errorLabels: ['NoWritesPerformed'] }),
      new MongoServerError({ message: 'BSONObj size: 16793600 is invalid', code: 10334, codeName: 'BSONObjectTooLarge' }),
      Object.assign(new Error('not a MongoDB error'), { code: 50 }),
      null,
      'text',
    ];
    for (const error of others) expect(isEngineUnreachable(error), String(error)).to.equal(false);
  });

  describe('over HTTP', () => {
    let server: TestServer;
    before(async () => (server = await startTestServer()));
    after(async () => server?.close());

    const failingWith = async (error: unknown) => {
      const token = await server.memberToken('demo');
      const log: EventLog = server.runtime.services.log;
      const append = log.appendToStream;
      log.appendToStream = async () => {
        throw error;
      };
      try {
        return await server.request('PUT', '/v1/me/watchlist/45', { token });
      } finally {
        log.appendToStream = append;
      }
    };

    it('answers a write 503 problem+json with Retry-After, whatever the kind, and names no engine', async () => {
      for (const [name, error] of Object.entries(UNREACHABLE)) {
        const response = await failingWith(error);
        expectProblem(response, 503);
        expect(Number(response.headers.get('retry-after')), name).to.be.greaterThan(0);
        expect(response.body.detail, name).to.match(/try again/i);
        expect(response.text, name).to.not.match(/ECONN|57P0|terminat|postgres|pg_|timeout exceeded|mongo|primary|txnNumber/i);
      }
    });

    it('still answers 500 for a failure that is not about reaching a store', async () => {
      expectProblem(await failingWith(new Error('a bug')), 500);
    });
  });
});
