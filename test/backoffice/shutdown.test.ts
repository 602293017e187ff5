// A feed request waiting for events (`wait`) and an open stream do not hold a graceful stop: SIGTERM answers
// the first at once with `Items: []` and ends the second, and the service exits 0 well within its grace period.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exitWithin, freePort, ready, sleep, startService } from '../support/service-process.ts';

const KEY = 'shutdown-backoffice-key-0123456789abcdef';
const GRACE_MS = 20_000;

describe('the back office feed at a graceful stop', function () {
  this.timeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-feed-stop-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('ends a waiting request at once on SIGTERM (Items: []), and the process exits 0 long before the grace period ends', async () => {
    const service = startService({
      role: 'all',
      port: await freePort(),
      dataDir,
      env: { DEMO_BACKOFFICE_KEY: KEY, SHUTDOWN_TIMEOUT_MS: String(GRACE_MS) },
    });
    try {
      await ready(service);
      const get = (query: string) =>
        fetch(`${service.base}/backoffice/v1/events${query}`, { headers: { Authorization: `Bearer ${KEY}` } }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { Items: unknown[]; Next: string; HasMore: boolean },
        }));
      let next = '';
      for (;;) {
        const page = await get(`?limit=1000${next ? `&after=${next}` : ''}`);
        expect(page.status).to.equal(200);
        next = page.body.Next;
        if (!page.body.HasMore) break;
      }
      const waiting = get(`?after=${next}&wait=60`);
      // And an open stream, which ends (its body completes) at the stop.
      const stream = await fetch(`${service.base}/backoffice/v1/events/stream?after=${next}`, {
        headers: { Authorization: `Bearer ${KEY}` },
      });
      expect(stream.status).to.equal(200);
      const streamEnded = stream.text();
      await sleep(300);
      const signalled = Date.now();
      service.child.kill('SIGTERM');
      const answer = await waiting;
      expect(answer).to.deep.equal({ status: 200, body: { Items: [], Next: next, HasMore: false } });
      expect(await streamEnded).to.match(/^: stream open\n\n$/);
      const exit = await exitWithin(service, 5000);
      expect(exit, service.output()).to.deep.equal({ code: 0, signal: null });
      expect(Date.now() - signalled).to.be.below(5000);
    } finally {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    }
  });
});
