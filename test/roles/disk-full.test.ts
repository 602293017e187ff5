/**
 * A full disk (PRODUCTION.md faults): the embedded default on a small tmpfs of its own as DATA_DIR, which the spec fills
 * to its last block with a file while the service runs. While it is full, every write answers 503 `storage-full` with
 * Retry-After (never 500), reads answer 200 (a catalogue PDF made on first request too), /readyz answers 503 with
 * `storage: full`, the episode is one `error` line of the log and the metrics show it. Once the file is removed, /readyz
 * and writes answer 200 again within a bound, in the same process, and every write answered 200 is in the log.
 * Mounting a tmpfs takes root: otherwise the spec says it skipped.
 */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import {
  call,
  demoMemberToken,
  freePort,
  OPERATOR,
  ready,
  SERVICE_PASSWORD,
  sleep,
  startService,
  type ServiceProcess,
} from '../support/service-process.ts';
import { readResponse, type TestResponse } from '../support/server.ts';
import { fillToLastBlock, mountTmpfs, unmountTmpfs } from '../support/tmpfs.ts';

/** The tmpfs: the demo data takes about 16 MB of it. */
const TMPFS_SIZE = '64m';
/** How long after the filler is removed /readyz and writes must answer 200 again (measured: about 1 s). */
const RECOVERY_MS = 15_000;
/** How long the disk stays full once the service said so: several of its looks for room, and the projections' retries. */
const FULL_MS = 3000;

interface Write {
  kind: 'watch' | 'bid' | 'sign-up' | 'sign-in';
  /** The episode (0 or 1), and when it was sent: before the filler, while full, after the filler was removed. */
  episode: number;
  phase: 'before' | 'full' | 'after';
  response: TestResponse;
  lotId?: number;
  value?: string | number;
}

/** One time the disk was full, and what the spec saw of it. */
interface Episode {
  /** Who is to find the disk full: /readyz, asked at once, or the writes alone (/readyz asked only once one was refused). */
  foundBy: 'readyz' | 'writes';
  filledAt: number;
  /** How many writes were made when the service first said the storage is full (its /readyz, or a write refused). */
  writesWhenSaid: number;
  readyWhileFull: TestResponse | null;
  metricsWhileFull: string;
  freedAt: number;
  readyAgainAt: number;
  writableAgainAt: number;
  metricsAfter: string;
}

interface LogLine {
  level: number;
  msg: string;
  time: number;
  [field: string]: unknown;
}

describe('a full disk under the embedded default', function () {
  this.timeout(240_000);
  let dir: string | null = null;
  let proc: ServiceProcess | null = null;
  let pid: number | undefined;
  const writes: Write[] = [];
  const reads: Array<{ episode: number; url: string; status: number; text: string }> = [];
  const episodes: Episode[] = [];

  before(async function () {
    dir = mountTmpfs(TMPFS_SIZE, 'bidder-disk-full-');
    if (!dir) this.skip();
    const filler = path.join(dir, 'filler');
    proc = startService({ port: await freePort(), dataDir: dir, env: { LOG_LEVEL: 'info' } });
    await ready(proc, 150_000);
    pid = proc.child.pid;
    const base = proc.base;
    // Ready means at most READY_MAX_LAG_SECONDS behind: the demo member may be projected a moment later.
    let token = '';
    for (const deadline = Date.now() + 30_000; !token; await sleep(500))
      token = await demoMemberToken(base).catch((error: Error) => {
        if (Date.now() > deadline) throw error;
        return '';
      });
    const anonymous = (await call(base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token as string;
    // Lots of the timed auction 10, open for days, which the demo member registers for: to watch and bid on.
    const registered = await call(base, 'POST', '/v1/me/registrations/10', token);
    expect(registered.status, registered.text).to.equal(200);
    const lots = await call(base, 'GET', '/v1/lots?AuctionId=10&pageSize=100', token);
    const open = (
      lots.body.Items as Array<{ Id: number; EndTime: string | null; IsClosed: boolean; MinimumNextBid: number | null }>
    ).filter((l) => !l.IsClosed && l.EndTime && Date.parse(l.EndTime) > Date.now() + 3600_000 && l.MinimumNextBid !== null);
    expect(open.length, 'open lots of auction 10').to.be.greaterThan(2);
    const [watched, bidOn] = open;
    let maxAmount = bidOn.MinimumNextBid! + 1000;
    let watchType = 0;
    let signUps = 0;
    const types = ['watch', 'favourite', 'reminder'];
    const readyz = async () => readResponse(await fetch(`${base}/readyz`, { headers: OPERATOR }));
    const metrics = async () => (await fetch(`${base}/metrics`, { headers: OPERATOR })).text();

    const writeOf = async (kind: Write['kind'], phase: Write['phase']): Promise<Write> => {
      const episode = Math.max(0, episodes.length - 1);
      let write: Write;
      if (kind === 'watch') {
        const value = types[watchType++ % 3];
        const response = await call(base, 'PUT', `/v1/me/watchlist/${watched.Id}`, token, { Type: value });
        write = { kind, episode, phase, lotId: watched.Id, value, response };
      } else if (kind === 'bid') {
        const value = (maxAmount += 10);
        const response = await call(base, 'POST', '/v1/me/bids', token, { LotId: bidOn.Id, MaxAmount: value });
        write = { kind, episode, phase, lotId: bidOn.Id, value, response };
      } else if (kind === 'sign-up') {
        const value = `disk-full-${++signUps}-${pid}@example.com`;
        const body = { Email: value, Password: 'a long enough password', FirstName: 'Disk', LastName: 'Full', Language: 'sv' };
        write = { kind, episode, phase, value, response: await call(base, 'POST', '/v1/members', anonymous, body) };
      } else {
        const body = { Email: 'bidder@example.com', Password: SERVICE_PASSWORD };
        write = { kind, episode, phase, response: await call(base, 'POST', '/v1/sessions', anonymous, body) };
      }
      writes.push(write);
      return write;
    };
    const allKinds = async (phase: Write['phase']) => {
      const made: Write[] = [];
      for (const kind of ['sign-in', 'watch', 'sign-up', 'bid'] as const) made.push(await writeOf(kind, phase));
      return made;
    };
    const read = async (url: string) => {
      const response = await call(base, 'GET', url, token);
      reads.push({ episode: episodes.length - 1, url, status: response.status, text: response.text.slice(0, 300) });
    };

    await allKinds('before');
    await allKinds('before');
    for (const foundBy of ['readyz', 'writes'] as const) {
      const episode: Episode = {
        foundBy,
        filledAt: Date.now(),
        writesWhenSaid: 0,
        readyWhileFull: null,
        metricsWhileFull: '',
        freedAt: 0,
        readyAgainAt: 0,
        writableAgainAt: 0,
        metricsAfter: '',
      };
      episodes.push(episode);
      // Full: written to its last block while the service goes on, until the service says so.
      fillToLastBlock(filler);
      for (const deadline = Date.now() + 60_000; ; fillToLastBlock(filler)) {
        if (foundBy === 'readyz') {
          await writeOf('watch', 'full');
          episode.readyWhileFull = await readyz();
          if (episode.readyWhileFull.status === 503) break;
        } else if ((await allKinds('full')).some((w) => w.response.status !== 200)) {
          episode.readyWhileFull = await readyz();
          break;
        }
        expect(Date.now(), `not found full: ${episode.readyWhileFull?.text}`).to.be.below(deadline);
      }
      episode.writesWhenSaid = writes.length;
      for (const until = Date.now() + FULL_MS; Date.now() < until;) {
        await allKinds('full');
        for (const url of ['/v1/lots?AuctionId=10', '/v1/auctions', `/v1/lots/${watched.Id}`, '/v1/auctions/10/catalogue']) await read(url);
        await sleep(200);
      }
      episode.metricsWhileFull = await metrics();

      // Room again: the filler removed, and nothing else done to the service.
      fs.rmSync(filler);
      episode.freedAt = Date.now();
      for (const deadline = episode.freedAt + RECOVERY_MS + 5000; !episode.readyAgainAt && Date.now() < deadline; await sleep(100))
        if ((await readyz()).status === 200) episode.readyAgainAt = Date.now();
      for (const deadline = episode.freedAt + RECOVERY_MS + 5000; !episode.writableAgainAt && Date.now() < deadline; await sleep(100))
        if ((await writeOf('bid', 'after')).response.status === 200) episode.writableAgainAt = Date.now();
      await allKinds('after');
      await read('/v1/auctions/10/catalogue');
      episode.metricsAfter = await metrics();
    }
  });

  after(async function () {
    if (proc) {
      proc.child.kill('SIGTERM');
      const stopped = await Promise.race([proc.exited, sleep(20_000).then(() => null)]);
      if (!stopped) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    }
    if (dir) await unmountTmpfs(dir);
  });

  const logLines = (): LogLine[] =>
    proc!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);

  it('answers every write while the disk is full 503 storage-full with Retry-After, never 500, and says nothing of the engine', function () {
    episodes.forEach((episode, i) => {
      const full = writes.filter((w) => w.episode === i && w.phase === 'full');
      // Before the service says so, a write may still find room a SQLite file holds (its WAL): 200, and in the log.
      const refused = full.filter((w) => w.response.status !== 200);
      expect(refused.length, `episode ${i}: writes refused`).to.be.greaterThan(8);
      for (const w of refused) {
        const what = `episode ${i}, ${w.kind}: ${w.response.text}`;
        expect(w.response.status, what).to.equal(503);
        expect(w.response.headers.get('content-type'), what).to.match(/^application\/problem\+json/);
        expect(w.response.body.code, what).to.equal('storage-full');
        expect(Number(w.response.headers.get('retry-after')), what).to.be.greaterThan(0);
        expect(w.response.text, what).to.not.match(/sqlite|ENOSPC|disk is full|no space/i);
      }
      // Once it said so, every one of them, but a watch of the type the lot has already (nothing to store).
      const watchedAs = (w: Write) =>
        writes
          .slice(0, writes.indexOf(w))
          .filter((v) => v.kind === 'watch' && v.response.status === 200)
          .at(-1)?.value;
      expect(
        writes
          .slice(episode.writesWhenSaid)
          .filter((w) => w.episode === i && w.phase === 'full' && w.response.status !== 503)
          .filter((w) => !(w.kind === 'watch' && w.value === watchedAs(w)))
          .map((w) => `${w.kind} ${w.value}: ${w.response.status} ${w.response.text}`),
        `episode ${i}: writes answered otherwise than 503 once the service said it is full`,
      ).to.deep.equal([]);
      for (const kind of ['sign-in', 'watch', 'sign-up', 'bid'] as const)
        expect(
          refused.some((w) => w.kind === kind),
          `episode ${i}: a ${kind} refused`,
        ).to.equal(true);
    });
  });

  it('answers reads while the disk is full, a catalogue PDF made on first request too', function () {
    episodes.forEach((_, i) => expect(reads.filter((r) => r.episode === i).length, `episode ${i}`).to.be.greaterThan(4));
    expect(reads.filter((r) => r.status !== 200)).to.deep.equal([]);
  });

  it('answers /readyz 503 saying the storage is full, and shows the episode in the metrics', function () {
    episodes.forEach(({ readyWhileFull, metricsWhileFull, metricsAfter }, i) => {
      expect(readyWhileFull!.status, `episode ${i}`).to.equal(503);
      expect(readyWhileFull!.body, `episode ${i}`).to.include({ status: 'unavailable', storage: 'full' });
      expect(Number(readyWhileFull!.headers.get('retry-after')), `episode ${i}`).to.be.greaterThan(0);
      expect(metricsWhileFull, `episode ${i}`).to.match(/^bidder_storage_full\{role="all"\} 1$/m);
      const refused = /^bidder_storage_full_writes_total\{source="request",role="all"\} (\d+)$/m.exec(metricsWhileFull);
      expect(Number(refused?.[1]), `episode ${i}`).to.be.greaterThan(8);
      expect(metricsAfter, `episode ${i}`).to.match(/^bidder_storage_full\{role="all"\} 0$/m);
    });
  });

  it('logs each episode once: one error line when it starts, one info line when it ends, and no other error', function () {
    episodes.forEach((episode, i) => {
      const lines = logLines().filter((l) => l.time >= episode.filledAt && l.time < (episodes[i + 1]?.filledAt ?? Infinity));
      const errors = lines.filter((l) => l.level >= 50);
      expect(
        errors.map((l) => l.msg),
        `episode ${i}: ${JSON.stringify(errors.slice(0, 5))}`,
      ).to.deep.equal(['storage full: writes are refused until there is room again']);
      expect(errors[0].store, `episode ${i}`).to.equal('data folder');
      // Found by /readyz's look at the disk, or by a write that failed for want of room (a request's, a projection's).
      if (episode.foundBy === 'readyz') expect(errors[0].found).to.equal('check');
      else expect(errors[0].found).to.not.equal('check');
      const ended = lines.filter((l) => l.msg === 'storage has room again: writes resumed');
      expect(
        ended.map((l) => l.level),
        `episode ${i}`,
      ).to.deep.equal([30]);
    });
  });

  it('serves /readyz and writes again within the bound once there is room, in the same process', function () {
    expect(proc!.child.exitCode, proc!.output().slice(-3000)).to.equal(null);
    expect(proc!.child.pid).to.equal(pid);
    episodes.forEach((episode, i) => {
      expect(episode.readyAgainAt, `episode ${i}: /readyz 200 again`).to.be.greaterThan(0);
      expect(episode.readyAgainAt - episode.freedAt, `episode ${i}`).to.be.below(RECOVERY_MS);
      expect(episode.writableAgainAt, `episode ${i}: a write 200 again`).to.be.greaterThan(0);
      expect(episode.writableAgainAt - episode.freedAt, `episode ${i}`).to.be.below(RECOVERY_MS);
      const after = writes.filter((w) => w.episode === i && w.phase === 'after').slice(-4);
      expect(
        after.map((w) => `${w.kind} ${w.response.status}`),
        `episode ${i}`,
      ).to.deep.equal(['sign-in 200', 'watch 200', 'sign-up 200', 'bid 200']);
    });
  });

  it('keeps every write answered 200 in the log', function () {
    const db = new Database(path.join(dir!, 'events.sqlite'), { readonly: true });
    try {
      const events = db
        .prepare(`SELECT type, data FROM events WHERE type IN ('LotWatched', 'WatchTypeChanged', 'MaxBidPlaced', 'MemberSignedUp')`)
        .all() as Array<{ type: string; data: string }>;
      const data = events.map((e) => ({ ...(JSON.parse(e.data) as Record<string, unknown>), type: e.type }) as Record<string, unknown>);
      const inLog = (w: Write) =>
        w.kind === 'bid'
          ? data.some((e) => e.type === 'MaxBidPlaced' && e.lotId === w.lotId && e.maxAmount === w.value)
          : w.kind === 'sign-up'
            ? data.some((e) => e.type === 'MemberSignedUp' && e.email === w.value)
            : data.some((e) => e.type !== 'MaxBidPlaced' && e.lotId === w.lotId && e.watchType === w.value);
      const answered = writes.filter((w) => w.kind !== 'sign-in' && w.response.status === 200);
      expect(answered.filter((w) => w.phase === 'before').length).to.equal(6);
      expect(answered.filter((w) => !inLog(w)).map((w) => `${w.phase} ${w.kind} ${w.value}`)).to.deep.equal([]);
    } finally {
      db.close();
    }
  });
});
