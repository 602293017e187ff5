/**
 * A `worker`'s /readyz looks at the engines it works on (the event log, the read models, the job queue, PostgreSQL),
 * as an `api`'s reaches the log and the read models through its projections' status: one that fails, or accepts
 * connections and never answers, makes it 503 `engines-unreachable` with Retry-After within a bound, never a probe
 * left waiting. First the probe over the EventStoreDB adapter (its fake) and stand-ins of the other ports, then a
 * worker process's own /readyz with Redis behind a connection that stops answering.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { opsApp } from '../../src/http/ops-routes.ts';
import { engineProbe, workerChecks } from '../../src/roles/readiness.ts';
import { EsdbEventLog } from '../../src/adapters/esdb/esdb-event-log.ts';
import { FakeEsdbClient } from '../support/fake-esdb-client.ts';
import { createRuntime, type Runtime } from '../../app/runtime.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { sleep } from '../support/until.ts';

const REDIS_URL = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0');

interface Probe {
  status: number;
  body: Record<string, unknown>;
  retryAfter: string | null;
}

/** GET /readyz of an app on a port of its own; status 0 when it did not answer within `ms`. */
async function readyz(app: http.RequestListener, ms = 20_000): Promise<Probe> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
    const response = await fetch(url, { signal: AbortSignal.timeout(ms) }).catch(() => null);
    if (!response) return { status: 0, body: {}, retryAfter: null };
    return { status: response.status, body: await response.json(), retryAfter: response.headers.get('retry-after') };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const never = () => new Promise<never>(() => undefined);

describe("a worker's /readyz looks at the engines it works on", function () {
  this.timeout(60_000);

  describe('the probe', () => {
    let fake: FakeEsdbClient;
    let log: EsdbEventLog;
    let documents: () => Promise<unknown>;
    let jobs: () => Promise<unknown>;
    let jobChecks = 0;
    const app = () =>
      opsApp({
        role: 'worker',
        metrics: null,
        access: 'open',
        ping: engineProbe(
          workerChecks({
            log,
            documents: { parkedCounts: async () => (await documents()) as [] },
            jobs: {
              parkedCounts: async () => {
                jobChecks++;
                return (await jobs()) as Record<string, number>;
              },
            },
            ping: async () => undefined,
          }),
          300,
        ),
      });
    beforeEach(() => {
      fake = new FakeEsdbClient();
      log = new EsdbEventLog(fake);
      documents = async () => [];
      jobs = async () => ({});
      jobChecks = 0;
    });
    afterEach(() => log.close());

    it('answers ready while every engine answers', async () => {
      const ready = await readyz(app());
      expect(ready.status).to.equal(200);
      expect(ready.body).to.include({ status: 'ready', engines: 'reachable' });
    });

    for (const outage of ['unavailable', 'hung', 'not-ready'] as const)
      it(`answers 503 engines-unreachable with Retry-After while the event log is ${outage}, and ready once it is back`, async () => {
        fake.setOutage(outage);
        const down = await readyz(app());
        expect(down.status).to.equal(503);
        expect(down.body).to.include({ status: 'unavailable', reason: 'engines-unreachable', engines: 'unreachable' });
        expect(Number(down.retryAfter)).to.be.greaterThan(0);
        fake.setOutage(null);
        expect((await readyz(app())).status).to.equal(200);
      });

    it('answers 503 when the read models fail or the job queue never answers, and asks a hung engine only once', async () => {
      documents = async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' });
      };
      expect((await readyz(app())).body).to.include({ reason: 'engines-unreachable' });
      documents = async () => [];
      jobs = never;
      jobChecks = 0;
      const probed = app();
      expect((await readyz(probed)).status).to.equal(503);
      expect((await readyz(probed)).status).to.equal(503);
      expect(jobChecks, 'the second probe waits on the first call').to.equal(1);
    });
  });

  describe('a worker process with Redis that stops answering', () => {
    let proxy: FrozenProxy;
    let runtime: Runtime;
    const prefix = `bidder-test-${randomUUID().slice(0, 8)}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-worker-readyz-'));

    before(async () => {
      proxy = await FrozenProxy.start(Number(REDIS_URL.port || 6379), REDIS_URL.hostname);
      const url = `redis://127.0.0.1:${proxy.port}${REDIS_URL.pathname}`;
      const config = loadConfig({ DATA_DIR: dataDir, ROLE: 'worker', REDIS_URL: url, REDIS_PREFIX: prefix, SEARCH_THREAD: 'false' });
      runtime = await createRuntime(config, createLogger({ level: 'silent' }));
    });
    after(async () => {
      proxy?.thaw();
      await runtime?.close();
      await proxy?.close();
      const redis = new Redis(REDIS_URL.toString());
      try {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers 503 engines-unreachable within its bound, not never, and ready again once Redis answers', async () => {
      expect((await readyz(runtime.app as http.RequestListener)).status).to.equal(200);
      proxy.freeze();
      // Past the second for which the parked summary of the last probe is reused. Frozen for less than the worker
      // lease's 15 s, whose renewals wait meanwhile: waiting 6 s for the answer (twice the bound) keeps within it.
      await sleep(1200);
      const frozen = await readyz(runtime.app as http.RequestListener, 6_000);
      proxy.thaw();
      expect(frozen.status, 'answered while Redis did not answer').to.equal(503);
      expect(frozen.body).to.include({ reason: 'engines-unreachable' });
      expect((await readyz(runtime.app as http.RequestListener)).status).to.equal(200);
    });
  });
});

/**
 * A TCP proxy to a server that can stop passing bytes either way while keeping every connection open (and taking
 * new ones): a server that accepts connections and no longer answers.
 */
class FrozenProxy {
  private frozen = false;
  private readonly pairs = new Set<[net.Socket, net.Socket]>();

  private constructor(private readonly server: net.Server) {}

  static async start(port: number, host: string): Promise<FrozenProxy> {
    const server = net.createServer();
    const proxy = new FrozenProxy(server);
    server.on('connection', (client) => {
      const upstream = net.connect(port, host);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      proxy.pairs.add(pair);
      const end = () => {
        proxy.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      for (const socket of pair) socket.on('error', end).on('close', end);
      if (proxy.frozen) pair.forEach((s) => s.pause());
      else proxy.join(pair);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  freeze() {
    this.frozen = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  thaw() {
    if (!this.frozen) return;
    this.frozen = false;
    for (const pair of this.pairs) this.join(pair);
  }

  private join([client, upstream]: [net.Socket, net.Socket]) {
    client.pipe(upstream);
    upstream.pipe(client);
  }

  async close() {
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }
}
