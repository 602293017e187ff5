/**
 * Contract of the KeyRingStore port (src/ports/key-ring.ts), run against every adapter: the file in DATA_DIR and
 * PostgreSQL's tables. `fresh()` gives, for each test, new storage and a way to open stores on it: two stores
 * opened on it stand for two processes (or machines) of one deployment.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { KeyRing, KeyRingStore, SigningKey } from '../../src/ports/key-ring.ts';

const secret = () => randomBytes(48).toString('base64url');
const key = (id: string, created = new Date().toISOString()): SigningKey => ({ id, secret: secret(), created });
const ring = (...ids: string[]): KeyRing => ({ anchor: secret(), keys: ids.map((id) => key(id)) });

export function keyRingStoreContract(name: string, fresh: () => Promise<() => Promise<KeyRingStore>>): void {
  describe(`KeyRingStore contract: ${name}`, function () {
    let openStore: () => Promise<KeyRingStore>;
    const opened: KeyRingStore[] = [];
    const store = async () => {
      const made = await openStore();
      opened.push(made);
      return made;
    };
    beforeEach(async function () {
      openStore = await fresh();
    });
    afterEach(async function () {
      for (const made of opened.splice(0)) await made.close();
    });

    it('has no ring before one is opened, then stores the first ring and gives it back, secrets and times as they were', async () => {
      const a = await store();
      expect(await a.read()).to.equal(null);
      const first = ring('k1');
      expect(await a.open(() => first)).to.deep.equal(first);
      expect(await a.read()).to.deep.equal(first);
      // Another process opening it later gets the stored ring, not its own.
      expect(await (await store()).open(() => ring('other'))).to.deep.equal(first);
    });

    it('makes the ring once when several processes open it at once: every one gets the one that was stored', async () => {
      const stores = await Promise.all(Array.from({ length: 6 }, () => store()));
      const offered = stores.map((_, i) => ring(`start-${i}`));
      const got = await Promise.all(stores.map((s, i) => s.open(() => offered[i])));
      for (const answer of got) expect(answer).to.deep.equal(got[0]);
      expect(offered.map((r) => JSON.stringify(r))).to.include(JSON.stringify(got[0]));
      expect(await stores[0].read()).to.deep.equal(got[0]);
    });

    it('adds keys oldest first, seen by another process; a key id taken already is refused and changes nothing', async () => {
      const [a, b] = [await store(), await store()];
      const start = ring('k1');
      await a.open(() => start);
      const second = key('k2', new Date(Date.now() + 1000).toISOString());
      expect(await b.add(second)).to.equal(true);
      expect(await a.read()).to.deep.equal({ ...start, keys: [...start.keys, second] });
      expect(await a.add({ ...key('k2'), secret: secret() })).to.equal(false);
      expect((await b.read())!.keys).to.deep.equal([...start.keys, second]);
    });

    it('loses no key when several processes add at once', async () => {
      const stores = await Promise.all(Array.from({ length: 5 }, () => store()));
      await stores[0].open(() => ring('k0'));
      const base = Date.now();
      const added = stores.map((_, i) => key(`add-${i}`, new Date(base + 1000 * (i + 1)).toISOString()));
      expect(await Promise.all(stores.map((s, i) => s.add(added[i])))).to.deep.equal(added.map(() => true));
      expect((await stores[0].read())!.keys.map((k) => k.id).sort()).to.deep.equal(['k0', ...added.map((k) => k.id)].sort());
    });

    it('retires a key at the time given, once; an unknown key is not retired', async () => {
      const [a, b] = [await store(), await store()];
      await a.open(() => ring('k1', 'k2'));
      const at = new Date().toISOString();
      expect(await a.retire('k1', at)).to.equal(true);
      expect(await b.retire('k1', new Date().toISOString())).to.equal(false);
      expect(await b.retire('nope', at)).to.equal(false);
      const keys = (await b.read())!.keys;
      expect(keys.find((k) => k.id === 'k1')!.retired).to.equal(at);
      expect(keys.find((k) => k.id === 'k2')!.retired).to.equal(undefined);
    });

    it('keeps the anchor as it was made, whatever keys are added and retired', async () => {
      const a = await store();
      const start = ring('k1');
      await a.open(() => start);
      await a.add(key('k2'));
      await a.retire('k1', new Date().toISOString());
      expect((await (await store()).read())!.anchor).to.equal(start.anchor);
    });
  });
}
