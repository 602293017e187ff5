/**
 * Across a network (PRODUCTION.md "PostgreSQL"): the service reaches PostgreSQL and Redis through a proxy that
 * holds every chunk 0.25 ms each way (bench/latency-proxy.ts), and counts the round trips each request made to
 * them on /metrics (bidder_round_trips_total). A watchlist PUT costs a bounded number of them; a lot page the
 * response cache answers costs none. A first process seeds the schema directly and stops; the one measured runs
 * every role (its projections move its read-your-writes waits, so the count does not depend on their pace).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { startLatencyProxy, targetOf, throughProxy, type LatencyProxy } from '../../bench/latency-proxy.ts';
import { call, demoMemberToken, freePort, OPERATOR, ready, startService, type ServiceProcess } from '../support/service-process.ts';

const POSTGRES = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.REDIS_TEST_URL || 'redis://127.0.0.1:6379';
/**
 * Round trips of one watchlist PUT, PostgreSQL and Redis together, that the request itself makes (the lot's look-up
 * and the append: 2 today; the projector's commit it waits for is the projector's own).
 */
const WATCH_ROUND_TRIPS = 4;

/** bidder_round_trips_total and bidder_http_requests_total of one operation, summed over engines and statuses. */
async function tally(base: string, operation: string): Promise<{ postgres: number; redis: number; requests: number }> {
  const response = await fetch(`${base}/metrics`, { headers: OPERATOR });
  const text = await response.text();
  const sum = (pattern: RegExp) =>
    text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((n, line) => n + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    postgres: sum(new RegExp(`^bidder_round_trips_total\\{[^}]*operation="${operation}"[^}]*engine="postgres"`)),
    redis: sum(new RegExp(`^bidder_round_trips_total\\{[^}]*operation="${operation}"[^}]*engine="redis"`)),
    requests: sum(new RegExp(`^bidder_http_requests_total\\{[^}]*operation="${operation}"`)),
  };
}

/** What one request of `operation` (made by `request`) cost in round trips, read on /metrics before and after. */
async function roundTripsOf(base: string, operation: string, request: () => Promise<number>) {
  const before = await tally(base, operation);
  expect(await request()).to.be.within(200, 299);
  const after = await tally(base, operation);
  expect(after.requests - before.requests, `one ${operation} request counted`).to.equal(1);
  return { postgres: after.postgres - before.postgres, redis: after.redis - before.redis };
}

describe('Across a network: round trips to PostgreSQL and Redis per request, through a latency proxy', function () {
  this.timeout(120_000);
  const schema = `bidder_network_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const prefix = `bidder-network-${randomUUID().slice(0, 8)}`;
  const proxies: LatencyProxy[] = [];
  const started: ServiceProcess[] = [];
  let service: ServiceProcess;
  let token: string;

  const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-pg-network-'));

  before(async function () {
    const env = { POSTGRES_URL: POSTGRES, POSTGRES_SCHEMA: schema, REDIS_URL: REDIS, REDIS_PREFIX: prefix, JWT_SECRET: '' };
    const seeder = startService({ port: await freePort(), dataDir: dataDir(), env });
    started.push(seeder);
    await ready(seeder);
    seeder.child.kill('SIGTERM');
    await seeder.exited;
    for (const url of [POSTGRES, REDIS]) proxies.push(await startLatencyProxy(targetOf(url), 0.25));
    const [pgProxy, redisProxy] = proxies;
    service = startService({
      port: await freePort(),
      dataDir: dataDir(),
      env: { ...env, POSTGRES_URL: throughProxy(POSTGRES, pgProxy.port), REDIS_URL: throughProxy(REDIS, redisProxy.port) },
    });
    started.push(service);
    await ready(service);
    token = await demoMemberToken(service.base);
  });
  after(async function () {
    for (const proc of started) if (proc.child.exitCode === null) proc.child.kill('SIGTERM');
    await Promise.all(started.map((proc) => proc.exited));
    await Promise.all(proxies.map((proxy) => proxy.close()));
    const admin = new pg.Pool({ connectionString: POSTGRES, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
    const redis = new Redis(REDIS);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it(`answers a watchlist PUT in at most ${WATCH_ROUND_TRIPS} round trips, at least one of them to PostgreSQL`, async function () {
    const put = async (lot: number) => (await call(service.base, 'PUT', `/v1/me/watchlist/${lot}`, token, { Type: 'watch' })).status;
    // The first write of a member warms what a process keeps of it (its credentials, its stream's revision).
    await put(1001);
    const trips = await roundTripsOf(service.base, 'watchLot', () => put(1002));
    expect(trips.postgres, JSON.stringify(trips)).to.be.greaterThan(0);
    expect(trips.postgres + trips.redis, JSON.stringify(trips)).to.be.at.most(WATCH_ROUND_TRIPS);
    const listed = await call(service.base, 'GET', '/v1/me/watchlist', token);
    expect(listed.body.Items.map((i: { Id: number }) => i.Id)).to.include.members([1001, 1002]);
  });

  it('answers a lot page from its response cache without a round trip', async function () {
    const page = async () => (await call(service.base, 'GET', '/v1/lots?PageSize=5', token)).status;
    // The projections may still move the catalogue's version after the write above: a few answers fill the cache.
    let trips = { postgres: -1, redis: -1 };
    for (let tries = 0; tries < 5 && trips.postgres + trips.redis !== 0; tries++)
      trips = await roundTripsOf(service.base, 'listLots', page);
    expect(trips).to.deep.equal({ postgres: 0, redis: 0 });
  });
});
