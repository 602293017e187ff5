import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { requestCommands } from '../../src/command-streams.ts';
import { createLogger } from '../../src/logger.ts';
import { watchlistDecider } from '../../commands/watchlist/decide.ts';
import { watchlistStreamId } from '../../commands/watchlist/events.ts';

const at = '2026-11-22T10:00:00.000Z';
const stream = watchlistStreamId('demo', 1);
const watch = (lotId: number) =>
  ({ type: 'WatchLot', tenant: 'demo', memberId: 1, lotId, watchType: 'watch', at, lotExists: true }) as const;

/**
 * Read your writes derived from the events a command appended: it waits for the document projections that
 * handle their types, never for reactors or the search index, and a command that appended nothing waits for nothing.
 */
describe('read your writes of a request', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-ryw-'));
  let log: SqliteEventLog;
  const waits: Array<{ position: number; names: string[] }> = [];
  const projector = {
    projections: [
      { kind: 'documents', name: 'watchlist', handles: ['LotWatched', 'WatchTypeChanged', 'LotUnwatched'] },
      { kind: 'documents', name: 'catalogue', handles: ['LotCatalogued'] },
      { kind: 'search', name: 'lot-search', handles: ['LotCatalogued', 'LotWatched'] },
      { kind: 'reactor', name: 'mails', handles: ['LotWatched'] },
    ],
    waitFor: async (position: number, names: string[]) => (waits.push({ position, names }), true),
  };
  const commands = () =>
    requestCommands({ log, projector, logger: createLogger({ level: 'silent' }), readYourWritesTimeoutMs: 1000 }, 'req-1');

  beforeEach(() => {
    log = new SqliteEventLog(path.join(dir, `${Math.random().toString(36).slice(2)}.sqlite`));
    waits.length = 0;
  });
  afterEach(async () => log.close());
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('waits for the document projections that handle the appended event types, not for reactors or the search index', async () => {
    const result = await commands().run(stream, watchlistDecider, watch(5), { readYourWrites: true });
    expect(waits).to.deep.equal([{ position: result.position, names: ['watchlist'] }]);
  });

  it('waits for nothing without readYourWrites, or when the command appended nothing', async () => {
    await commands().run(stream, watchlistDecider, watch(5));
    await commands().run(stream, watchlistDecider, watch(5), { readYourWrites: true });
    expect(waits).to.deep.equal([]);
  });

  it('waits afterwards for what a run appended, and catches up the read models of event types to the head of the log', async () => {
    const result = await commands().run(stream, watchlistDecider, watch(6));
    await commands().waitFor(result);
    await commands().catchUp(['LotCatalogued']);
    expect(waits).to.deep.equal([
      { position: result.position, names: ['watchlist'] },
      { position: await log.headPosition(), names: ['catalogue'] },
    ]);
  });
});
