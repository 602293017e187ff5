import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { runCommand } from '../../src/command-runner.ts';
import { watchlistDecider } from '../../commands/watchlist/decide.ts';
import { watchlistEvents, watchlistStreamId } from '../../commands/watchlist/events.ts';

const at = '2026-11-22T10:00:00.000Z';
const stream = watchlistStreamId('demo', 1);
const watch = (lotId: number, watchType: 'watch' | 'favourite' = 'watch') =>
  ({ type: 'WatchLot', tenant: 'demo', memberId: 1, lotId, watchType, at, lotExists: true }) as const;

describe('the command runner', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-runner-'));
  let log: SqliteEventLog;
  let file: string;
  beforeEach(() => {
    file = path.join(dir, `${Math.random().toString(36).slice(2)}.sqlite`);
    log = new SqliteEventLog(file);
  });
  afterEach(async () => log.close());
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lets only one of many concurrent identical commands append (the others see its event)', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => runCommand(log, stream, watchlistDecider, watch(5))));
    expect(results.filter((r) => r.events.length > 0)).to.have.length(1);
    expect(await log.readStream(stream)).to.have.length(1);
  });

  it('decides on events another writer appended since its last command', async () => {
    await runCommand(log, stream, watchlistDecider, watch(5));
    // Another process (or the back office) appends to the same stream behind this runner's back.
    await log.appendToStream(
      stream,
      [watchlistEvents.toNew({ type: 'WatchTypeChanged', data: { tenant: 'demo', memberId: 1, lotId: 5, watchType: 'favourite', at } })],
      { expectedRevision: 0 },
    );
    const result = await runCommand(log, stream, watchlistDecider, watch(5, 'favourite'));
    expect(result.events).to.deep.equal([]);
    const again = await runCommand(log, stream, watchlistDecider, watch(5, 'watch'));
    expect(again.events.map((e) => e.type)).to.deep.equal(['WatchTypeChanged']);
    expect((await log.readStream(stream)).map((e) => e.revision)).to.deep.equal([0, 1, 2]);
  });

  it('retries on a stale revision and never writes over a concurrent append', async () => {
    const other = new SqliteEventLog(file);
    await runCommand(other, stream, watchlistDecider, watch(1));
    const [a, b] = await Promise.all([
      runCommand(log, stream, watchlistDecider, watch(2)),
      runCommand(other, stream, watchlistDecider, watch(3)),
    ]);
    expect(a.events).to.have.length(1);
    expect(b.events).to.have.length(1);
    const lots = (await log.readStream(stream)).map((e) => e.data.lotId);
    expect(lots.sort()).to.deep.equal([1, 2, 3]);
    await other.close();
  });
});
