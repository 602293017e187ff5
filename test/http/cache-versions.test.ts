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
    const versions = new ProjectionVersions(async () => 0);
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
    const versions = new ProjectionVersions(
      async () => checkpoint,
      async (_name, from, to) => (asked.push([from, to]), handled),
    );
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
});
