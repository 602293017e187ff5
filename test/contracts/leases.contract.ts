/**
 * Contract of the LeaseStore port (src/ports/leases.ts), run against every adapter: the embedded SQLite table,
 * Redis and PostgreSQL. Lease names are unique per test, so a factory may share its storage between tests.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { LeaseHolder, LeaseStore } from '../../src/ports/leases.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A holder; `pid` of another process of this host, or of a host of its own. */
const holder = (role: string, other: { host?: string; pid?: number } = {}): LeaseHolder => ({
  id: randomUUID(),
  host: other.host ?? os.hostname(),
  pid: other.pid ?? process.pid,
  role,
  startedAt: new Date().toISOString(),
});

export function leaseStoreContract(name: string, makeStore: () => Promise<LeaseStore>): void {
  describe(`LeaseStore contract: ${name}`, function () {
    let store: LeaseStore;
    let lease: string;
    beforeEach(async function () {
      store = await makeStore();
      lease = `lease-${randomUUID()}`;
    });
    afterEach(async function () {
      await store.close();
    });

    it('gives a free lease to the first holder, and again to the same holder', async function () {
      const a = holder('projector', { host: 'host-a' });
      expect(await store.acquire(lease, a, 10_000)).to.deep.equal({ acquired: true });
      expect(await store.acquire(lease, a, 10_000)).to.deep.equal({ acquired: true });
    });

    it('refuses a held lease to another holder, naming the holder that keeps it', async function () {
      const a = holder('projector', { host: 'host-a' });
      await store.acquire(lease, a, 10_000);
      expect(await store.acquire(lease, holder('projector', { host: 'host-b' }), 10_000)).to.deep.equal({ acquired: false, heldBy: a });
    });

    it('lets only one of several holders asking at once take a free lease', async function () {
      const holders = Array.from({ length: 6 }, (_, i) => holder('worker', { host: `host-${i}` }));
      const answers = await Promise.all(holders.map((h) => store.acquire(lease, h, 10_000)));
      expect(answers.filter((a) => a.acquired)).to.have.length(1);
    });

    it('renews for its holder only, and a released lease is free; a release by another changes nothing', async function () {
      const a = holder('worker', { host: 'host-a' });
      const b = holder('worker', { host: 'host-b' });
      await store.acquire(lease, a, 10_000);
      expect(await store.renew(lease, a, 10_000)).to.equal(true);
      expect(await store.renew(lease, b, 10_000)).to.equal(false);
      await store.release(lease, b);
      expect((await store.acquire(lease, b, 10_000)).acquired).to.equal(false);
      await store.release(lease, a);
      expect(await store.acquire(lease, b, 10_000)).to.deep.equal({ acquired: true });
    });

    it('gives an expired lease to another holder, after which the first one cannot renew it', async function () {
      const a = holder('worker', { host: 'host-a' });
      const b = holder('worker', { host: 'host-b' });
      await store.acquire(lease, a, 150);
      await sleep(300);
      expect(await store.acquire(lease, b, 10_000)).to.deep.equal({ acquired: true });
      expect(await store.renew(lease, a, 10_000)).to.equal(false);
    });

    it('takes at once a lease whose holder on this host is a process that no longer runs', async function () {
      const gone = holder('projector', { pid: 2 ** 22 + 12345 });
      await store.acquire(lease, gone, 60_000);
      expect(await store.acquire(lease, holder('projector'), 10_000)).to.deep.equal({ acquired: true });
    });
  });
}
