/**
 * A store out of room (a full disk, PostgreSQL's 53100 disk_full and 53200 out_of_memory, MongoDB's OutOfDiskSpace):
 * a write answers 503 `storage-full` with Retry-After, never 500, and names no engine; the process keeps one record
 * of the episode (src/storage-room.ts), logged once when it starts and once when it ends, shown by /readyz and
 * /metrics, which ends by itself once there is room. Here each kind of error is thrown in place of the log's append;
 * the real full disk is test/roles/disk-full.test.ts.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isLocalStorageFull, isStorageFull, StorageFullError } from '../../src/errors.ts';
import { createLogger } from '../../src/logger.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import { StorageRoom, type WriteSource } from '../../src/storage-room.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const withCode = (message: string, code: string | number) => Object.assign(new Error(message), { code });

/** What better-sqlite3, Node's file system, node-postgres and the MongoDB driver throw when their store is out of room. */
const FULL: Record<string, unknown> = {
  'SQLite full (SQLITE_FULL)': withCode('database or disk is full', 'SQLITE_FULL'),
  'a file write (ENOSPC)': withCode("ENOSPC: no space left on device, write '/data/files/demo/x.tmp-1'", 'ENOSPC'),
  'a quota spent (EDQUOT)': withCode('EDQUOT: disk quota exceeded, write', 'EDQUOT'),
  'PostgreSQL disk_full (53100)': withCode('could not extend file "base/16384/16402": No space left on device', '53100'),
  'PostgreSQL out_of_memory (53200)': withCode('out of memory', '53200'),
  'MongoDB OutOfDiskSpace (14031)': withCode('Not enough disk space', 14031),
  'wrapped as a cause': new Error('append failed', { cause: withCode('database or disk is full', 'SQLITE_FULL') }),
};
const LOCAL = ['SQLite full (SQLITE_FULL)', 'a file write (ENOSPC)', 'a quota spent (EDQUOT)', 'wrapped as a cause'];

/** Log lines written to an array. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { logger, lines, errors: () => lines.filter((l) => (l.level as number) >= 50), infos: () => lines.filter((l) => l.level === 30) };
}

describe('a store out of room', () => {
  it('is told from other failures by its error, and a disk of this machine from a database server’s', () => {
    for (const [name, error] of Object.entries(FULL)) {
      expect(isStorageFull(error), name).to.equal(true);
      expect(isLocalStorageFull(error), name).to.equal(LOCAL.includes(name));
    }
    for (const error of [
      new Error('boom'),
      withCode('busy', 'SQLITE_BUSY'),
      withCode('refused', 'ECONNREFUSED'),
      withCode('dup', '23505'),
      null,
    ])
      expect(isStorageFull(error), String(error)).to.equal(false);
  });

  describe('the record of an episode', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-room-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    let now = 0;
    let room = true;
    const record = (log: ReturnType<typeof capturedLogger>) =>
      new StorageRoom({ dataDir: dir, logger: log.logger, now: () => now, hasRoom: async () => room });
    beforeEach(() => {
      now = 1_000_000;
      room = true;
    });

    it('starts at the first write refused for want of room, is logged once, counts each, and ends once the data folder has room', async () => {
      const log = capturedLogger();
      const storage = record(log);
      const counted: WriteSource[] = [];
      storage.onRefused((source) => counted.push(source));
      expect(storage.refused(new Error('a bug'), 'request')).to.equal(false);
      expect(storage.full).to.equal(false);
      room = false;
      expect(storage.refused(FULL['SQLite full (SQLITE_FULL)'], 'request')).to.equal(true);
      expect(storage.refused(FULL['a file write (ENOSPC)'], 'projection')).to.equal(true);
      expect(storage.refused(FULL['SQLite full (SQLITE_FULL)'], 'job')).to.equal(true);
      expect(storage.full).to.equal(true);
      // Writes to the data folder are refused before they start, answered 503 storage-full.
      let refused: unknown = null;
      try {
        storage.assertRoom();
      } catch (error) {
        refused = error;
      }
      expect(refused).to.be.instanceOf(StorageFullError);
      expect(refused).to.include({ status: 503, code: 'storage-full' });
      expect(isLocalStorageFull(refused)).to.equal(true);
      now += 1000;
      expect(await storage.check()).to.equal(true);
      room = true;
      now += 1000;
      expect(await storage.check()).to.equal(false);
      expect(() => storage.assertRoom()).to.not.throw();
      storage.close();
      expect(log.errors().map((l) => [l.msg, l.found, l.store])).to.deep.equal([
        ['storage full: writes are refused until there is room again', 'request', 'data folder'],
      ]);
      expect(log.infos().map((l) => [l.msg, l.refused, l.seconds])).to.deep.equal([['storage has room again: writes resumed', 3, 2]]);
      expect(counted).to.deep.equal(['request', 'projection', 'job']);
    });

    it('finds the data folder full when asked (/readyz), before any write failed', async () => {
      const log = capturedLogger();
      const storage = record(log);
      room = false;
      expect(await storage.check()).to.equal(true);
      expect(() => storage.assertRoom()).to.throw(StorageFullError);
      room = true;
      now += 1000;
      expect(await storage.check()).to.equal(false);
      storage.close();
      expect(log.errors().map((l) => l.found)).to.deep.equal(['check']);
      expect(log.infos()).to.have.length(1);
    });

    it('ends a database server’s episode (53100, 53200) once it refused nothing for 10 s, and never refuses a write before it is tried', async () => {
      const log = capturedLogger();
      const storage = record(log);
      storage.refused(FULL['PostgreSQL disk_full (53100)'], 'request');
      expect(() => storage.assertRoom()).to.not.throw();
      now += 6000;
      storage.refused(FULL['PostgreSQL out_of_memory (53200)'], 'projection');
      now += 6000;
      expect(await storage.check(), 'refused 6 s ago').to.equal(true);
      now += 4000;
      expect(await storage.check(), 'refused 10 s ago').to.equal(false);
      storage.close();
      expect(log.errors().map((l) => [l.found, l.store])).to.deep.equal([['request', 'database']]);
      expect(log.infos().map((l) => l.refused)).to.deep.equal([2]);
    });
  });

  describe('over HTTP', () => {
    let server: TestServer;
    const lines: string[] = [];
    before(async () => (server = await startTestServer({ logLines: lines })));
    after(async () => server?.close());
    const logged = (msg: string) => lines.filter((line) => JSON.parse(line).msg === msg);

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

    it('refuses writes before they reach the data folder while it has no room, serves reads, and writes again once it has', async () => {
      const storage = server.runtime.services.storage;
      const token = await server.memberToken('demo');
      const anonymous = await server.anonymousToken('demo');
      const before = (await server.events()).length;
      // As after a write that found the disk full (the disk here has room: the next look ends the episode).
      storage.refused(FULL['SQLite full (SQLITE_FULL)'], 'request');
      for (const [method, url, body, who] of [
        ['PUT', '/v1/me/watchlist/46', { Type: 'watch' }, token],
        ['POST', '/v1/sessions', { Email: server.credentials.memberEmail, Password: 'a wrong password' }, anonymous],
        ['POST', '/v1/members', { Email: 'room@example.com', Password: 'a long enough password' }, anonymous],
      ] as const)
        expectProblem(await server.request(method, url, { token: who, body }), 503, 'storage-full');
      expect((await server.events()).length, 'events appended').to.equal(before);
      for (const url of ['/v1/lots?AuctionId=10', '/v1/auctions', '/v1/lots/46'])
        expect((await server.request('GET', url, { token })).status, url).to.equal(200);
      expect((await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'demo' } })).status).to.equal(200);
      // A catalogue PDF, made on its first request, is served and not kept.
      const pdf = await server.rawGet('/v1/auctions/10/catalogue', { token });
      expect(pdf.status).to.equal(200);
      expect(pdf.bytes.subarray(0, 5).toString()).to.equal('%PDF-');
      expect(fs.readdirSync(path.join(server.dataDir, 'files', 'demo')).filter((f) => f.includes('.tmp-'))).to.deep.equal([]);
      const made = server.runtime.services.generatedFiles.generated;
      expect((await server.rawGet('/v1/auctions/10/catalogue', { token })).status).to.equal(200);
      expect(server.runtime.services.generatedFiles.generated, 'made again: it was not kept').to.equal(made + 1);

      // The disk has room: /readyz looks, and the episode ends.
      for (const deadline = Date.now() + 10_000; storage.full && Date.now() < deadline; await sleep(100))
        await server.request('GET', '/readyz');
      expect(storage.full).to.equal(false);
      expect((await server.request('PUT', '/v1/me/watchlist/46', { token, body: { Type: 'watch' } })).status).to.equal(200);
      expect((await server.request('GET', '/readyz')).status).to.equal(200);
      expect(logged('storage full: writes are refused until there is room again')).to.have.length(1);
      expect(logged('storage has room again: writes resumed')).to.have.length(1);
    });

    it('answers a write 503 storage-full with Retry-After, whatever the store, names none, and says so in /readyz and /metrics', async () => {
      const refusedSoFar = async () => {
        const metrics = (await server.request('GET', '/metrics', { token: server.operatorToken })).text;
        return Number(/^bidder_storage_full_writes_total\{source="request",role="all"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
      };
      const before = await refusedSoFar();
      for (const [name, error] of Object.entries(FULL)) {
        const response = await failingWith(error);
        expectProblem(response, 503, 'storage-full');
        expect(Number(response.headers.get('retry-after')), name).to.be.greaterThan(0);
        expect(response.body.detail, name).to.match(/try again later/i);
        expect(response.text, name).to.not.match(/sqlite|ENOSPC|EDQUOT|53100|53200|postgres|disk|space|memory|mongo/i);
      }
      // One more episode, logged once (the database server's refusals keep it going for 10 s).
      expect(logged('storage full: writes are refused until there is room again')).to.have.length(2);
      const ready = await server.request('GET', '/readyz', { token: server.operatorToken });
      expect(ready.status).to.equal(503);
      expect(ready.body).to.include({ status: 'unavailable', storage: 'full' });
      expect((await server.request('GET', '/metrics', { token: server.operatorToken })).text).to.match(
        /^bidder_storage_full\{role="all"\} 1$/m,
      );
      expect(await refusedSoFar()).to.equal(before + Object.keys(FULL).length);
    });
  });
});
