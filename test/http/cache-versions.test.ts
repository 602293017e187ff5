/**
 * Versions of catalogue answers by tenant and auction (src/http/cache-versions.ts), as a process sees them:
 * told by the projector running here with each batch's events, or, for projections another process runs,
 * from their stored checkpoints and the events that moved them.
 */
import { expect } from 'chai';
import { ProjectionVersions } from '../../src/http/cache-versions.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';

const event = (data: Record<string, unknown>) => ({ data }) as unknown as RecordedEvent;
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).to.equal(true);
};

describe('versions of catalogue answers by tenant and auction', () => {
  it('move with the events of projections running here: their tenant, their auction, their lot', () => {
    const versions = new ProjectionVersions({ checkpoints: async (names) => names.map(() => 0) });
    const version = versions.scoped(['catalogue']);
    expect(version('a'), 'before the projector starts').to.equal(null);
    versions.started();
    versions.changed('catalogue', 10);
    const before = { a: version('a'), a1: version('a', 1), a2: version('a', 2), b: version('b') };
    expect(before.a).to.be.a('string');
    versions.changed('catalogue', 11, [event({ tenant: 'a', lotId: 5, auctionId: 2 })]);
    // A lot first seen here: the whole tenant moves (it may have been in another auction before).
    expect(version('a', 1)).to.not.equal(before.a1);
    const seen = { a: version('a'), a1: version('a', 1), a2: version('a', 2), b: version('b') };
    versions.changed('catalogue', 12, [event({ tenant: 'a', lotId: 5, amount: 100 })]);
    expect(version('a', 1), 'another auction').to.equal(seen.a1);
    expect(version('a', 2), 'its auction').to.not.equal(seen.a2);
    expect(version('a'), 'its tenant').to.not.equal(seen.a);
    expect(version('b'), 'another tenant').to.equal(seen.b);
    // A projection outside the named ones moves nothing of them.
    const now = version('a');
    versions.changed('members', 13, [event({ tenant: 'a', memberId: 1 })]);
    expect(version('a')).to.equal(now);
    // A change told without its events (a rebuild's swap) moves every tenant.
    versions.replaced('catalogue');
    expect(version('b')).to.not.equal(seen.b);
    versions.stopped();
  });

  it('follow a projection another process runs from its checkpoint and the events that moved it', async () => {
    let checkpoint = 100;
    let handled: RecordedEvent[] | null = [];
    const asked: [number, number][] = [];
    const versions = new ProjectionVersions({
      checkpoints: async () => [checkpoint],
      handledBetween: async (_name, from, to) => (asked.push([from, to]), handled),
    });
    versions.started();
    const version = versions.scoped(['catalogue']);
    expect(version('a'), 'until its checkpoint is read').to.equal(null);
    await until(() => version('a') !== null);
    const [a1, b] = [version('a', 1), version('b')];
    // Lot 5 catalogued in auction 2 (first seen: the tenant moves), then a bid on it (auction 2 alone).
    handled = [event({ tenant: 'a', lotId: 5, auctionId: 2 })];
    checkpoint = 110;
    await until(() => version('a', 1) !== a1);
    const [seenA1, seenA2] = [version('a', 1), version('a', 2)];
    handled = [event({ tenant: 'a', lotId: 5, amount: 200 })];
    checkpoint = 120;
    await until(() => version('a', 2) !== seenA2);
    expect(asked).to.deep.include.members([
      [100, 110],
      [110, 120],
    ]);
    expect(version('a', 1)).to.equal(seenA1);
    expect(version('b')).to.equal(b);
    // Too many events to read: every version moves.
    handled = null;
    checkpoint = 200_000;
    await until(() => version('b') !== b);
    versions.stopped();
  });

  it('keep following the other projections while one checkpoint cannot be read (the search index away), and move what it guards once it can', async () => {
    let search: number | null = 50;
    let catalogue = 100;
    const versions = new ProjectionVersions({
      checkpoints: async (names) => names.map((name) => (name === 'lot-search' ? search : catalogue)),
      handledBetween: async () => [],
    });
    versions.started();
    const all = versions.of(['catalogue', 'lot-search']);
    const alone = versions.of(['catalogue']);
    const scoped = versions.scoped(['catalogue', 'lot-search']);
    await until(() => all() !== null && alone() !== null);
    const before = scoped('a');
    search = null;
    await until(() => all() === null);
    expect(scoped('a'), 'nothing it guards is kept meanwhile').to.equal(null);
    const seen = alone();
    catalogue = 110;
    await until(() => alone() !== seen);
    search = 50;
    await until(() => all() !== null);
    // Read again at the same position: what was answered before it was lost is not taken as current.
    expect(scoped('a')).to.not.equal(before);
    versions.stopped();
  });

  describe('before a request (fresh)', () => {
    /** A checkpoint store another process moves, whose reads are counted and may be held. */
    function store() {
      const s = { checkpoint: 100, mark: 1, reads: 0, hold: null as Promise<void> | null };
      const versions = new ProjectionVersions({
        checkpoints: async () => {
          s.reads++;
          const position = s.checkpoint;
          await s.hold;
          return [position];
        },
        changeMark: () => String(s.mark),
      });
      versions.started();
      return { s, versions, version: versions.of(['catalogue']) };
    }

    it('costs nothing while every projection runs here', () => {
      const versions = new ProjectionVersions({ checkpoints: async (names) => names.map(() => 0) });
      versions.started();
      versions.changed('catalogue', 10);
      expect(versions.of(['catalogue'])()).to.be.a('string');
      expect(versions.fresh()).to.equal(null);
    });

    it('reads the checkpoints again once another process changed the store, before the request goes on', async () => {
      const { s, versions, version } = store();
      expect(version(), 'until its checkpoint is read').to.equal(null);
      await versions.fresh();
      const before = version();
      expect(before).to.be.a('string');
      // Nothing committed since: no read, nothing to wait for.
      const reads = s.reads;
      expect(versions.fresh()).to.equal(null);
      expect(s.reads).to.equal(reads);
      // Another process moved the checkpoint (and so the store's change mark): read before the request goes on.
      s.checkpoint = 120;
      s.mark = 2;
      const wait = versions.fresh();
      expect(wait).to.be.an.instanceOf(Promise);
      await wait;
      expect(version()).to.not.equal(before);
      expect(versions.fresh()).to.equal(null);
      versions.stopped();
    });

    it('waits for a read that began after the request, not one already running, and shares it among requests', async () => {
      const { s, versions, version } = store();
      version();
      await versions.fresh();
      let release!: () => void;
      s.hold = new Promise((resolve) => (release = resolve));
      s.mark = 2;
      const first = versions.fresh()!;
      // The running read saw 100; a change now needs the next read, which every request meanwhile shares.
      s.checkpoint = 130;
      s.mark = 3;
      const [second, third] = [versions.fresh()!, versions.fresh()!];
      expect(second).to.equal(third);
      expect(second).to.not.equal(first);
      const reads = s.reads;
      s.hold = null;
      release();
      await second;
      expect(s.reads - reads, 'one more read for both').to.equal(1);
      expect(version()).to.equal('130;');
      versions.stopped();
    });

    it('reads before every request when the store has no change mark (one read at a time)', async () => {
      let reads = 0;
      let checkpoint = 5;
      const versions = new ProjectionVersions({ checkpoints: async () => (reads++, [checkpoint]) });
      versions.started();
      const version = versions.of(['catalogue']);
      version();
      await versions.fresh();
      expect(version()).to.equal('5;');
      checkpoint = 6;
      const before = reads;
      await Promise.all([versions.fresh(), versions.fresh(), versions.fresh()]);
      expect(version()).to.equal('6;');
      expect(reads - before).to.be.within(1, 2);
      versions.stopped();
    });
  });
});
