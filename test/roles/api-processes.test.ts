/**
 * API_PROCESSES (ROLE=all): `npm start` as a cluster primary that runs the projectors and jobs, and two `api`
 * processes sharing PORT. Both answer; read-your-writes, the sign-in limit and cached catalogue answers hold
 * across them; one killed is started again while the port keeps answering, up to 5 times a minute; SIGTERM, or
 * Ctrl-C to the process group, stops them all with exit code 0. Which process answered: each one's /metrics on
 * its own port (METRICS_PORT + 1, + 2).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import {
  answered,
  demoMemberToken,
  exitWithin,
  fresh,
  freePortRun,
  ready,
  SERVICE_PASSWORD,
  sleep,
  startService,
  type ServiceProcess,
} from '../support/service-process.ts';

const GRACE_MS = 3000;

/** The process's children (the api processes of a primary), from /proc. */
function children(pid: number): number[] {
  const text = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('API_PROCESSES: the API on every core', function () {
  this.timeout(120_000);

  describe('the setting', () => {
    it('is auto by default for ROLE=all (the cores available), an integer >= 1 otherwise, and 1 for the other roles', () => {
      expect(loadConfig({}).apiProcesses).to.equal(os.availableParallelism());
      expect(loadConfig({ API_PROCESSES: 'auto' }).apiProcesses).to.equal(os.availableParallelism());
      expect(loadConfig({ API_PROCESSES: '3' }).apiProcesses).to.equal(3);
      for (const role of ['api', 'projector', 'worker']) expect(loadConfig({ ROLE: role, API_PROCESSES: '4' }).apiProcesses).to.equal(1);
      for (const bad of ['0', '-1', '1.5', 'many'])
        expect(() => loadConfig({ API_PROCESSES: bad }), bad).to.throw(/API_PROCESSES must be auto or an integer >= 1/);
    });
  });

  describe('with API_PROCESSES=2', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-api-processes-'));
    const started: ServiceProcess[] = [];
    let service: ServiceProcess;
    let port: number;
    let metricsPort: number;
    let member: string;
    let anonymous: string;

    /** The primary, its metrics on METRICS_PORT and its two api processes' on the two ports after it. */
    async function start(options: { detached?: boolean } = {}): Promise<ServiceProcess> {
      const base = await freePortRun(4);
      [port, metricsPort] = [base, base + 1];
      const env = { API_PROCESSES: '2', METRICS_PORT: String(metricsPort), SHUTDOWN_TIMEOUT_MS: String(GRACE_MS) };
      const proc = startService({ port, dataDir, env, ...options });
      started.push(proc);
      await ready(proc, 90_000, '/openapi.json');
      return proc;
    }

    /** Which api processes (1, 2) answered `operation` between two looks at their metrics. */
    const looks = () => Promise.all([answered(metricsPort + 1), answered(metricsPort + 2)]);
    const movedIn = (before: Map<string, number>[], after: Map<string, number>[], operation: string) =>
      [1, 2].filter((slot) => (after[slot - 1].get(operation) ?? 0) > (before[slot - 1].get(operation) ?? 0));

    before(async () => {
      service = await start();
      const token = await fresh(port, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' });
      expect(token.status).to.equal(200);
      anonymous = token.body.Token;
      member = await demoMemberToken(service.base);
    });

    after(async () => {
      for (const proc of started) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('says in its banner how many api processes serve the port, and runs them as its children', () => {
      expect(service.output()).to.include(`listening on http://localhost:${port} with 2 api processes`);
      expect(children(service.child.pid!)).to.have.length(2);
    });

    it('answers through both api processes, the primary its own health and metrics', async () => {
      const before = await looks();
      for (let i = 0; i < 6; i++) expect((await fresh(port, 'GET', '/v1/increments', anonymous)).status).to.equal(200);
      const after = await looks();
      const [one, two] = [1, 2].map((slot) => (after[slot - 1].get('listIncrements') ?? 0) - (before[slot - 1].get('listIncrements') ?? 0));
      expect(one + two).to.equal(6);
      expect(one, 'answered by api process 1').to.be.at.least(1);
      expect(two, 'answered by api process 2').to.be.at.least(1);
      const health = await (await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).json();
      expect(health).to.deep.equal({ status: 'ok', role: 'all' });
      expect((await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status).to.equal(200);
      expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).to.include('bidder_projection_caught_up');
    });

    it('reads a write made through one api process back through the other, on the next request', async () => {
      let crossed = false;
      for (let lot = 31; lot < 37 && !crossed; lot++) {
        const before = await looks();
        const put = await fresh(port, 'PUT', `/v1/me/watchlist/${lot}`, member, { Type: 'watch' });
        expect(put.status).to.equal(200);
        const list = await fresh(port, 'GET', '/v1/me/watchlist?PageSize=100', member);
        expect(list.status).to.equal(200);
        expect(list.body.Items.map((i: { Id: number }) => i.Id)).to.include(lot);
        const after = await looks();
        const [wrote, read] = [movedIn(before, after, 'watchLot'), movedIn(before, after, 'listWatchlist')];
        expect(wrote).to.have.length(1);
        expect(read).to.have.length(1);
        crossed = wrote[0] !== read[0];
      }
      expect(crossed, 'a write and its read on different api processes').to.equal(true);
    });

    it('shows a bid placed through one api process on the lot read through each of them (their cached answers follow)', async () => {
      expect((await fresh(port, 'POST', '/v1/me/registrations/10', member)).status).to.equal(200);
      const page = await fresh(port, 'GET', '/v1/lots?AuctionId=10&pageSize=50', anonymous);
      const lot = (page.body.Items as Array<{ Id: number; BidCount: number; MinimumNextBid: number }>).find((l) => l.BidCount === 0)!;
      // Both processes answer (and may cache) the lot before the bid.
      for (let i = 0; i < 2; i++) expect((await fresh(port, 'GET', `/v1/lots/${lot.Id}`, anonymous)).body.BidCount).to.equal(0);
      const bid = await fresh(port, 'POST', '/v1/me/bids', member, { LotId: lot.Id, MaxAmount: lot.MinimumNextBid });
      expect(bid.status, JSON.stringify(bid.body)).to.equal(200);
      const before = await looks();
      // From the first read after the bid's answer, on either process (test/roles/one-service.test.ts: every cache).
      const reads = [await fresh(port, 'GET', `/v1/lots/${lot.Id}`, anonymous), await fresh(port, 'GET', `/v1/lots/${lot.Id}`, anonymous)];
      expect(reads.map((r) => r.body.BidCount)).to.deep.equal([bid.body.BidCount, bid.body.BidCount]);
      expect(movedIn(before, await looks(), 'getLot'), 'both read the lot').to.have.length(2);
    });

    it('counts wrong sign-ins spread over both api processes against one limit', async () => {
      const before = await looks();
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++)
        statuses.push(
          (
            await fresh(port, 'POST', '/v1/sessions', anonymous, {
              Email: 'bidder@example.com',
              Password: `wrong-${i}-${SERVICE_PASSWORD}`,
            })
          ).status,
        );
      expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429, 429, 429]);
      expect(movedIn(before, await looks(), 'signIn'), 'both took sign-ins').to.have.length(2);
    });

    it('starts an api process killed with SIGKILL again, and the port answers all along', async () => {
      const [victim, survivor] = children(service.child.pid!);
      process.kill(victim, 'SIGKILL');
      for (let i = 0; i < 100 && alive(victim); i++) await sleep(20);
      expect(alive(victim), 'the killed process is gone').to.equal(false);
      for (let i = 0; i < 10; i++) expect((await fresh(port, 'GET', '/healthz', null)).status).to.equal(200);
      const deadline = Date.now() + 60_000;
      let now = children(service.child.pid!);
      while (now.length < 2 && Date.now() < deadline) {
        expect((await fresh(port, 'GET', '/healthz', null)).status).to.equal(200);
        await sleep(100);
        now = children(service.child.pid!);
      }
      expect(now).to.include(survivor);
      expect(now).to.have.length(2).and.not.include(victim);
      // Log lines reach standard output within 250 ms (src/logger.ts).
      for (let i = 0; i < 20 && !/api process ended unexpectedly; starting it again/.test(service.output()); i++) await sleep(100);
      expect(service.output()).to.match(/api process ended unexpectedly; starting it again/);
      // Its replacement takes connections once it listens (it tells the primary, which logs nothing more).
      const until = Date.now() + 60_000;
      for (;;) {
        const before = await looks().catch(() => null);
        if (before) {
          for (let i = 0; i < 4; i++) expect((await fresh(port, 'GET', '/v1/increments', anonymous)).status).to.equal(200);
          if (movedIn(before, await looks(), 'listIncrements').length === 2) break;
        }
        expect(Date.now(), 'the new api process never answered').to.be.below(until);
        await sleep(200);
      }
    });

    it('stops the primary and its api processes on SIGTERM, exit code 0', async () => {
      const pids = children(service.child.pid!);
      service.child.kill('SIGTERM');
      const exit = await exitWithin(service, GRACE_MS + 5000);
      expect(exit, service.output()).to.deep.equal({ code: 0, signal: null });
      expect(pids.filter(alive), 'api processes left').to.deep.equal([]);
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => expect.fail('the port still answers'),
        (error) => expect(error.cause?.code).to.equal('ECONNREFUSED'),
      );
    });

    it('stops them all with exit code 0 on Ctrl-C (SIGINT to the process group), started again on the same folder', async () => {
      service = await start({ detached: true });
      const pids = [service.child.pid!, ...children(service.child.pid!)];
      expect(pids).to.have.length(3);
      process.kill(-service.child.pid!, 'SIGINT');
      const exit = await exitWithin(service, GRACE_MS + 5000);
      expect(exit, service.output()).to.deep.equal({ code: 0, signal: null });
      expect(pids.filter(alive), 'processes left').to.deep.equal([]);
    });

    it('gives up when api processes keep dying (a sixth end within a minute): logs it, stops, exit code 1', async () => {
      service = await start();
      const killed = new Set<number>();
      const deadline = Date.now() + 30_000;
      while (service.child.exitCode === null && Date.now() < deadline) {
        for (const pid of children(service.child.pid!).filter((p) => !killed.has(p))) {
          killed.add(pid);
          process.kill(pid, 'SIGKILL');
        }
        await sleep(50);
      }
      const exit = await exitWithin(service, GRACE_MS + 5000);
      expect(exit, service.output()).to.deep.equal({ code: 1, signal: null });
      expect(killed.size).to.be.within(6, 8);
      expect(service.output()).to.match(/api processes ended 6 times within 60 s/);
    });
  });
});
