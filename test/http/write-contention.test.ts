/**
 * A command that loses the race for its stream to other writers is decided again (test/commands/
 * conflict-retry.test.ts); one that keeps losing for longer than its budget answers 503 problem+json with
 * Retry-After, never 500. Seen from outside: one member's watchlist written in parallel through two `api`
 * processes on one DATA_DIR (each appends to the member's one stream) loses no acknowledged write.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { WrongExpectedVersionError, type EventLog } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { call, demoMemberToken, freePort, ready, startService, type ServiceProcess } from '../support/service-process.ts';

describe('writes that race for one stream', function () {
  this.timeout(180_000);

  describe('a command whose stream keeps changing under it', () => {
    let server: TestServer;
    before(async () => (server = await startTestServer()));
    after(async () => server?.close());

    it('answers 503 problem+json with Retry-After after its retry budget, and stores nothing of it', async () => {
      const token = await server.memberToken('demo');
      const log: EventLog = server.runtime.services.log;
      const append = log.appendToStream;
      // As on a log without the locked append (PostgreSQL, EventStoreDB): the embedded log would decide the
      // contended stream under its write lock, where no other writer can come between (test/commands/conflict-retry.test.ts).
      const decided = log.appendDecided;
      log.appendDecided = undefined;
      // Another writer appends to the member's watchlist before every try of this process.
      log.appendToStream = async function (streamId, events, options) {
        if (streamId === 'watchlist-demo-1') throw new WrongExpectedVersionError(streamId, 0, 1);
        return append.call(this, streamId, events, options);
      };
      const started = Date.now();
      let response;
      try {
        response = await server.request('PUT', '/v1/me/watchlist/44', { token });
      } finally {
        log.appendToStream = append;
        log.appendDecided = decided;
      }
      expectProblem(response, 503);
      expect(response.headers.get('retry-after')).to.equal('1');
      expect(response.body.detail).to.match(/try again/i);
      expect(response.text).to.not.match(/watchlist-demo|revision|WrongExpected/i);
      // Within the budget (2 s) and a last backoff, not at the first conflict nor endlessly.
      expect(Date.now() - started)
        .to.be.at.least(1900)
        .and.below(10_000);
      const list = await server.request('GET', '/v1/me/watchlist?PageSize=100', { token });
      expect(list.body.Items.map((i: { Id: number }) => i.Id)).to.not.include(44);
      // The same request once the other writer is gone: done.
      expect((await server.request('PUT', '/v1/me/watchlist/44', { token })).status).to.equal(200);
    });
  });

  describe("two api processes appending to one member's stream in a tight loop", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-contention-'));
    const processes: ServiceProcess[] = [];
    after(async () => {
      for (const proc of processes) proc.child.kill('SIGKILL');
      await Promise.all(processes.map((p) => p.exited));
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers every PUT 200 (or 503, never 500) and each lot acknowledged is in the watchlist', async () => {
      // The first process seeds the demo data and runs the projections; the two others only answer.
      const all = startService({ role: 'all', port: await freePort(), dataDir });
      processes.push(all);
      await ready(all);
      const apis = [
        startService({ role: 'api', port: await freePort(), dataDir, env: { LOG_LEVEL: 'debug' } }),
        startService({ role: 'api', port: await freePort(), dataDir, env: { LOG_LEVEL: 'debug' } }),
      ];
      processes.push(...apis);
      await Promise.all(apis.map((p) => ready(p)));
      const token = await demoMemberToken(apis[0].base);

      // 240 lots, 24 at a time per process, alternating processes: the member's stream changes under
      // each process's appends all the time.
      const lots = Array.from({ length: 240 }, (_, i) => i + 1);
      const statuses = new Map<number, number>();
      const queue = [...lots];
      await Promise.all(
        Array.from({ length: 48 }, async (_, worker) => {
          const api = apis[worker % 2];
          for (let lotId = queue.shift(); lotId !== undefined; lotId = queue.shift()) {
            const response = await call(api.base, 'PUT', `/v1/me/watchlist/${lotId}`, token);
            statuses.set(lotId, response.status);
            if (response.status !== 200) expectProblem(response, 503);
          }
        }),
      );
      const counts = [...statuses.values()].reduce<Record<number, number>>((acc, s) => ((acc[s] = (acc[s] ?? 0) + 1), acc), {});
      expect(counts[500], JSON.stringify(counts)).to.equal(undefined);
      const acknowledged = lots.filter((lotId) => statuses.get(lotId) === 200);
      expect(acknowledged.length, JSON.stringify(counts)).to.be.above(200);

      // The race did happen: commands were decided again in both processes.
      for (const api of apis) expect(api.output()).to.match(/command decided again after concurrent appends/);

      // Read your writes through either process: every acknowledged lot is watched, nothing else.
      for (const api of apis) {
        const watched: number[] = [];
        for (let page = 1; ; page++) {
          const list = await call(api.base, 'GET', `/v1/me/watchlist?PageSize=100&Page=${page}`, token);
          expect(list.status, list.text).to.equal(200);
          watched.push(...list.body.Items.map((i: { Id: number }) => i.Id));
          if (page >= list.body.TotalPages) break;
        }
        expect(watched.sort((a, b) => a - b)).to.deep.equal(acknowledged);
      }
    });
  });
});
