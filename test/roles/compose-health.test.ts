/**
 * The compose files' health checks, run: each against a stand-in for its engine that answers as the engine's
 * source says, so that a check which passes before its engine serves, or never passes, fails here. No Docker
 * engine runs here; what each image contains is test/roles/compose.test.ts's (test/roles/image-contents.ts).
 */
import { spawnSync, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import vm from 'node:vm';
import { expect } from 'chai';
import { composeServices } from '../support/compose-file.ts';

const services = composeServices('docker-compose.yml');
const pgServices = composeServices('docker-compose.postgres.yml');
const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;

/** A local HTTP server answering each request with `answer`; closed after the spec. */
async function standIn(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const server = http.createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** How Docker runs a health check's test: CMD-SHELL with /bin/sh -c (dash, here as in the Debian and Ubuntu images). */
const asDockerRuns = (test: string[]) => (test[0] === 'CMD-SHELL' ? ['/bin/sh', '-c', test[1]] : test.slice(1));

/** A command's exit code (null: killed after `ms`; 127: not found). */
function exitCode(argv: string[], env: Record<string, string> = {}, ms = 10_000): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('error', () => resolve(127));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('docker-compose.yml: Typesense is healthy once it serves, by what its image has', function () {
  this.timeout(30_000);
  const test = services.typesense.healthcheck!.test;

  // GET /health answers 200 {"ok":true} once the node serves, else 503 {"ok":false} (typesense/typesense
  // src/core_api.cpp, get_health; nlohmann's dump() writes no spaces).
  const typesense = (ok: boolean) =>
    standIn((req, res) => {
      const health = req.url === '/health';
      res.writeHead(health && ok ? 200 : 503, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ ok: health && ok }));
    });
  /** The check's command with the stand-in's port for 8108. */
  const argv = (port: number) => asDockerRuns(test).map((a) => a.replace(/\b8108\b/g, String(port)));

  it('runs as a command of its own (CMD), not with /bin/sh, which is dash in the image (no /dev/tcp)', () => {
    expect(test[0]).to.equal('CMD');
    expect(test[1]).to.equal('bash');
  });

  (hasBash ? it : it.skip)('passes against a node that serves, fails against one that does not and on a closed port', async () => {
    const serving = await typesense(true);
    const starting = await typesense(false);
    try {
      expect(await exitCode(argv(serving.port))).to.equal(0);
      expect(await exitCode(argv(starting.port))).to.not.equal(0);
    } finally {
      await serving.close();
      await starting.close();
    }
    expect(await exitCode(argv(serving.port))).to.not.equal(0);
  });
});

describe("the roles' health check (node's fetch: the image has no curl)", function () {
  this.timeout(30_000);

  for (const [file, all] of [
    ['docker-compose.yml', services],
    ['docker-compose.postgres.yml', pgServices],
  ] as const) {
    it(`${file}: passes on a 2xx from /healthz on PORT, fails on a 503, a closed port and an answer that never comes`, async () => {
      const test = all.api.healthcheck!.test;
      expect(test[0]).to.equal('CMD');
      for (const role of ['projector', 'worker']) expect(all[role].healthcheck!.test, role).to.deep.equal(test);
      const argv = asDockerRuns(test);
      let status = 200;
      const seen: string[] = [];
      const api = await standIn((req, res) => {
        seen.push(req.url ?? '');
        if (status === 0) return; // never answers
        res.writeHead(status).end();
      });
      try {
        expect(await exitCode(argv, { PORT: String(api.port) })).to.equal(0);
        status = 503;
        expect(await exitCode(argv, { PORT: String(api.port) })).to.equal(1);
        status = 0;
        expect(await exitCode(argv, { PORT: String(api.port) })).to.equal(1);
      } finally {
        await api.close();
      }
      expect(await exitCode(argv, { PORT: String(api.port) })).to.equal(1);
      expect(seen[0]).to.equal('/healthz');
    });
  }
});

/** How a node of the replica set stands, for the stand-in of mongosh below. */
type NodeState = 'no-replset' | 'startup' | 'secondary' | 'primary';

/**
 * The health check's mongosh script run against a stand-in of mongod, as mongosh runs it (`db`, `rs`, `quit`,
 * `process.env`; an uncaught error exits 1: cli-repl.ts, loadCommandLineFilesAndEval). replSetGetStatus answers
 * NoReplicationEnabled (76) on the entrypoint's temporary server (no --replSet), NotYetInitialized (94) before
 * rs.initiate (mongodb/mongo src/mongo/db/repl/replication_coordinator_impl.cpp, checkReplEnabledForCommand), and
 * needs an authenticated user; `hello` does not. After rs.initiate the node is a secondary until it elects itself.
 */
function runMongoCheck(argv: string[], start: NodeState, envPassword = 'pw-of-the-spec') {
  const password = 'pw-of-the-spec';
  const node = { state: start, initiated: [] as unknown[], authenticated: argv.includes('-u') && argv.includes('-p') };
  const serverError = (codeName: string, code: number, message: string) =>
    Object.assign(new Error(message), { name: 'MongoServerError', code, codeName });
  const needsAuth = () => {
    if (!node.authenticated) throw serverError('Unauthorized', 13, 'command replSetGetStatus requires authentication');
  };
  const db = {
    getSiblingDB: (name: string) => ({
      auth: (user: string, pwd: string) => {
        if (name !== 'admin' || user !== 'bidder' || pwd !== password)
          throw serverError('AuthenticationFailed', 18, 'Authentication failed.');
        node.authenticated = true;
        return { ok: 1 };
      },
    }),
    hello: () => ({ isWritablePrimary: node.state === 'primary', secondary: node.state === 'secondary', ok: 1 }),
  };
  const rs = {
    status: () => {
      needsAuth();
      if (node.state === 'no-replset') throw serverError('NoReplicationEnabled', 76, 'not running with --replSet');
      if (node.state === 'startup') throw serverError('NotYetInitialized', 94, 'no replset config has been received');
      return { ok: 1, set: 'rs0' };
    },
    initiate: (config: unknown) => {
      needsAuth();
      if (node.state !== 'startup') throw serverError('AlreadyInitialized', 23, 'already initialized');
      node.initiated.push(config);
      node.state = 'secondary';
      return { ok: 1 };
    },
  };
  class Quit {
    constructor(readonly code: number) {}
  }
  const script = argv[argv.indexOf('--eval') + 1];
  let code = 0;
  try {
    vm.runInNewContext(script, {
      db,
      rs,
      quit: (c = 0) => {
        throw new Quit(c);
      },
      process: { env: { MONGO_INITDB_ROOT_PASSWORD: envPassword } },
    });
  } catch (error) {
    code = error instanceof Quit ? error.code : 1;
  }
  return { code, initiated: node.initiated };
}

/** The mongosh command of a health check, whether exec form or a shell line (`--eval "…"`). */
function mongoshArgv(test: string[]): string[] {
  if (test[0] === 'CMD') return test.slice(1);
  const line = test[1];
  const evalArg = /--eval\s+"((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? '';
  return [...line.slice(0, line.indexOf('--eval')).trim().split(/\s+/), '--eval', evalArg];
}

describe('docker-compose.yml: MongoDB is healthy only as the writable primary of its replica set', () => {
  const argv = mongoshArgv(services.mongodb.healthcheck!.test);

  it('runs mongosh itself, the password read from the environment (not on its command line, which ps shows)', () => {
    expect(argv[0]).to.equal('mongosh');
    expect(argv).to.not.include('-p');
    expect(argv[argv.indexOf('--eval') + 1]).to.contain('process.env.MONGO_INITDB_ROOT_PASSWORD');
  });

  it('on a first start initiates the one-node replica set, and is not healthy until the node is primary', () => {
    const first = runMongoCheck(argv, 'startup');
    expect(first.initiated).to.have.length(1);
    expect(first.code, 'just initiated: a secondary until it elects itself').to.not.equal(0);
    const second = runMongoCheck(argv, 'secondary');
    expect(second.initiated).to.deep.equal([]);
    expect(second.code, 'a secondary').to.not.equal(0);
    const third = runMongoCheck(argv, 'primary');
    expect(third).to.deep.equal({ code: 0, initiated: [] });
  });

  it("is not healthy, and initiates nothing, on the entrypoint's temporary server or with a wrong password", () => {
    for (const outcome of [runMongoCheck(argv, 'no-replset'), runMongoCheck(argv, 'startup', 'another-password')]) {
      expect(outcome.code).to.not.equal(0);
      expect(outcome.initiated).to.deep.equal([]);
    }
  });

  it('names its member as the roles reach it, and README gives the host a URL that reaches it (directConnection)', () => {
    const [{ members }] = runMongoCheck(argv, 'startup').initiated as Array<{ _id: string; members: Array<{ host: string }> }>;
    expect(members.map((m) => m.host)).to.deep.equal(['mongodb:27017']);
    // Each role connects to the set by that name: the driver then talks to the members the set names.
    for (const role of ['api', 'projector', 'worker']) {
      const url = new URL(services[role].environment!.MONGODB_URL.replace(/\$\{[^}]*\}/, 'secret'));
      expect(url.host, role).to.equal(members[0].host);
      expect(url.searchParams.get('replicaSet'), role).to.equal('rs0');
    }
    // From the host that name does not resolve: a direct connection to the published port instead.
    expect(services.mongodb.ports).to.deep.equal(['127.0.0.1:27017:27017']);
    const readme = fs.readFileSync('README.md', 'utf8');
    expect(readme).to.match(/mongodb:\/\/bidder:[^@\s]+@127\.0\.0\.1:27017\/bidder\?authSource=admin&directConnection=true/);
  });
});

describe('the other engines: checks that fail while the engine cannot serve', () => {
  it('Redis: redis-cli -e, which exits non-zero on an error reply (NOAUTH, LOADING; redis/redis src/redis-cli.c, cliReadReply)', () => {
    for (const all of [services, pgServices]) expect(all.redis.healthcheck!.test).to.deep.equal(['CMD', 'redis-cli', '-e', 'ping']);
  });

  it("PostgreSQL: pg_isready over TCP, where the entrypoint's socket-only first-start server is not (docker-entrypoint.sh)", () => {
    const test = pgServices.postgres.healthcheck!.test;
    expect(test.slice(0, 2)).to.deep.equal(['CMD', 'pg_isready']);
    expect(test[test.indexOf('-h') + 1]).to.equal('127.0.0.1');
  });

  it('EventStoreDB: curl -f on /health/live, which answers 204 only once the node is ready (ClusterVNodeStartup.cs, StatusCheck)', () => {
    expect(services.eventstoredb.healthcheck!.test.join(' ')).to.match(/\bcurl -f\S* http:\/\/localhost:2113\/health\/live\b/);
  });
});
