/**
 * Each engine is chosen by its URL alone (API.md "Engines and roles"): no URL, the embedded default under
 * DATA_DIR; REDIS_URL, jobs on BullMQ and limits in Redis (reachable here); an unreachable EventStoreDB or
 * MongoDB fails the start with a message that names the server but not its password.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { openEngines } from '../../app/engines.ts';
import { BullMqJobQueue } from '../../src/adapters/redis/bullmq-jobs.ts';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const logger = createLogger({ level: 'silent' });
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-engines-'));

describe('engines chosen by their URLs', function () {
  this.timeout(30_000);

  it('runs every port on the embedded default when no URL is set', async () => {
    const engines = await openEngines(loadConfig({ DATA_DIR: tempDir() }), logger, 'all');
    try {
      expect(engines.log).to.be.instanceOf(SqliteEventLog);
      expect(engines.documents).to.be.instanceOf(SqliteDocumentStore);
      expect(engines.searchInProcess).to.equal(true);
      for (const port of ['log', 'readModels', 'search', 'jobs', 'limits']) expect(engines.describe[port], port).to.match(/^embedded/);
    } finally {
      await engines.close();
    }
  });

  it('puts jobs on BullMQ and rate limits in Redis when REDIS_URL is set, and nothing else', async () => {
    const prefix = `bidder-test-${randomUUID().slice(0, 8)}`;
    const engines = await openEngines(loadConfig({ DATA_DIR: tempDir(), REDIS_URL, REDIS_PREFIX: prefix }), logger, 'api');
    try {
      // Loaded on demand by app/engines.ts (a module instance of its own under the test loader): compared by name.
      expect(engines.jobs.constructor.name).to.equal(BullMqJobQueue.name);
      expect(engines.limiter.constructor.name).to.equal(RedisRateLimiter.name);
      expect(engines.log).to.be.instanceOf(SqliteEventLog);
      expect((await engines.limiter.hit('k', 1, 10_000)).allowed).to.equal(true);
      const redis = new Redis(REDIS_URL);
      try {
        expect(await redis.keys(`${prefix}:rate*`)).to.have.length(1);
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    } finally {
      await engines.close();
    }
  });

  it('fails the start on an unreachable EventStoreDB, naming the server without its password', async () => {
    const config = loadConfig({ DATA_DIR: tempDir(), EVENTSTOREDB_URL: 'esdb://admin:s3cret-pw@127.0.0.1:1?tls=false' });
    const error = await openEngines(config, logger, 'all').then(
      () => null,
      (e: Error) => e,
    );
    expect(error).to.be.instanceOf(Error);
    expect(error!.message).to.contain('127.0.0.1');
    expect(error!.message).not.to.contain('s3cret-pw');
  });

  it('fails the start on an unreachable MongoDB, without its password', async () => {
    const config = loadConfig({
      DATA_DIR: tempDir(),
      MONGODB_URL: 'mongodb://admin:s3cret-pw@127.0.0.1:1/bidder?replicaSet=rs0&serverSelectionTimeoutMS=300&connectTimeoutMS=300',
    });
    const error = await openEngines(config, logger, 'all').then(
      () => null,
      (e: Error) => e,
    );
    expect(error).to.be.instanceOf(Error);
    expect(error!.message).not.to.contain('s3cret-pw');
  });

  it('stops the start when Typesense refuses the key, naming the variable: an api uses TYPESENSE_SEARCH_API_KEY', async () => {
    const keys: Array<string | undefined> = [];
    const server = createServer((req, res) => {
      keys.push(req.headers['x-typesense-api-key'] as string | undefined);
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"message":"Forbidden - a valid `x-typesense-api-key` header must be sent."}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const env = {
        DATA_DIR: tempDir(),
        TYPESENSE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        TYPESENSE_API_KEY: 'admin-key',
        TYPESENSE_SEARCH_API_KEY: 'search-key',
      };
      for (const [role, variable, key] of [
        ['api', 'TYPESENSE_SEARCH_API_KEY', 'search-key'],
        ['projector', 'TYPESENSE_API_KEY', 'admin-key'],
      ] as const) {
        const error = await openEngines(loadConfig({ ...env, ROLE: role }), logger, role).then(
          () => null,
          (e: Error) => e,
        );
        expect(error, role).to.be.instanceOf(ConfigError);
        expect(error!.message).to.match(new RegExp(`^${variable}: Typesense at http://127\\.0\\.0\\.1:\\d+ refused the API key \\(401`));
        expect(keys.pop()).to.equal(key);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses TYPESENSE_URL without TYPESENSE_API_KEY (an api may have TYPESENSE_SEARCH_API_KEY alone), and an unknown ROLE', () => {
    expect(() => loadConfig({ TYPESENSE_URL: 'http://127.0.0.1:8108' })).to.throw(/TYPESENSE_API_KEY/);
    const searchOnly = { TYPESENSE_URL: 'http://127.0.0.1:8108', TYPESENSE_SEARCH_API_KEY: 'k' };
    expect(loadConfig({ ...searchOnly, ROLE: 'api' }).engines.typesenseSearchApiKey).to.equal('k');
    expect(() => loadConfig({ ...searchOnly, ROLE: 'projector' })).to.throw(/without TYPESENSE_API_KEY$/);
    expect(() => loadConfig({ ROLE: 'web' })).to.throw(/ROLE must be one of all, api, projector, worker/);
  });
});
