// The watch of an open stream's credential (src/http/credential-watch.ts) over stand-ins: the end at expiry, one
// check as of the log's head as it starts listening, one check per revoking event once the read models of its type
// include it, a failing check tried again (told once), nothing after stop().
import { expect } from 'chai';
import { watchCredential, type WatchDeps } from '../../src/http/credential-watch.ts';
import type { StreamListener } from '../../src/events/feed.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stand-ins a spec drives: the log's head, the events told, what the checks answer; and what was asked of them. */
function standIns(options: { expiresInMs?: number; holds?: (position: number) => boolean | Promise<boolean> } = {}) {
  let listener: StreamListener | null = null;
  const asked = { caughtUp: [] as string[], checked: [] as number[], failures: 0, listening: false };
  const deps: WatchDeps = {
    expiresAtMs: Date.now() + (options.expiresInMs ?? 60_000),
    listen: async (l) => {
      listener = l;
      asked.listening = true;
      return () => {
        asked.listening = false;
        listener = null;
      };
    },
    types: ['MemberPasswordChanged', 'MemberRemoved'],
    head: async () => 100,
    caughtUp: async (position, types) => void asked.caughtUp.push(`${position} ${types.join(',')}`),
    stillHolds: async (position) => {
      asked.checked.push(position);
      return (options.holds ?? (() => true))(position);
    },
    failed: () => void asked.failures++,
  };
  const tell = (position: number, type: string) => listener?.({ position, type, streamId: 'member-demo-1' });
  return { deps, asked, tell };
}

describe('the watch of a stream credential', () => {
  it('ends at the expiry, with credential-expired, and listens no more', async () => {
    const { deps, asked } = standIns({ expiresInMs: 60 });
    const watch = await watchCredential(deps);
    expect(watch.ended.aborted).to.equal(false);
    await sleep(100);
    expect(watch.ended.aborted).to.equal(true);
    expect(watch.end?.Code).to.equal('credential-expired');
    expect(asked.listening).to.equal(false);
  });

  it('checks once as of the log head as it starts: a revocation before it listened ends it', async () => {
    const { deps, asked } = standIns({ holds: () => false });
    const watch = await watchCredential(deps);
    await sleep(10);
    expect(asked.caughtUp).to.deep.equal(['100 MemberPasswordChanged,MemberRemoved']);
    expect(watch.end?.Code).to.equal('credential-revoked');
  });

  it('checks again on a revoking event once the read models include it; other events check nothing', async () => {
    const { deps, asked, tell } = standIns({ holds: (position) => position < 150 });
    const watch = await watchCredential(deps);
    await sleep(10);
    tell(120, 'MemberEmailConfirmed');
    await sleep(10);
    expect(asked.checked).to.deep.equal([100]);
    tell(130, 'MemberPasswordChanged');
    await sleep(10);
    expect(watch.ended.aborted).to.equal(false);
    tell(160, 'MemberPasswordChanged');
    await sleep(10);
    expect(asked.caughtUp).to.deep.equal([
      '100 MemberPasswordChanged,MemberRemoved',
      '130 MemberPasswordChanged',
      '160 MemberPasswordChanged',
    ]);
    expect(asked.checked).to.deep.equal([100, 130, 160]);
    expect(watch.end?.Code).to.equal('credential-revoked');
  });

  it('tries a failing check again a second later, telling the failure once; the stream stays open meanwhile', async function () {
    this.timeout(5000);
    let fails = 2;
    const { deps, asked } = standIns({
      holds: () => {
        if (fails-- > 0) throw new Error('store unreachable');
        return false;
      },
    });
    const watch = await watchCredential(deps);
    await sleep(50);
    expect(watch.ended.aborted).to.equal(false);
    expect(asked.failures).to.equal(1);
    await sleep(2100);
    expect(asked.checked).to.have.length(3);
    expect(asked.failures).to.equal(1);
    expect(watch.end?.Code).to.equal('credential-revoked');
  });

  it('ends nothing after stop(), and leaves no check retrying', async function () {
    this.timeout(5000);
    const { deps, asked, tell } = standIns({ expiresInMs: 50, holds: (position) => position < 150 });
    const watch = await watchCredential(deps);
    await sleep(10);
    watch.stop();
    expect(asked.listening).to.equal(false);
    tell(200, 'MemberPasswordChanged');
    await sleep(80);
    expect(watch.ended.aborted).to.equal(false);

    const failing = standIns({
      holds: () => {
        throw new Error('store unreachable');
      },
    });
    const stopped = await watchCredential(failing.deps);
    await sleep(10);
    stopped.stop();
    await sleep(1100);
    expect(failing.asked.checked).to.have.length(1);
  });
});
