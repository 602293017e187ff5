/**
 * The production shape's four roles as one specification, run over each engine set that allows them (API.md
 * "Engines and roles", PRODUCTION.md "PostgreSQL"): two `api`, one `projector` and one `worker` process (the
 * real entry point, app/main.ts) with jobs and rate limits in the local Redis, either on one shared DATA_DIR
 * (the embedded default) or each on a DATA_DIR of its own sharing only PostgreSQL and Redis (several machines).
 * What must hold across them: read-your-writes from one `api` to the other, one sign-in limit, one answer per
 * Idempotency-Key, files stored through one read by the others, a side effect done once by the worker, parallel
 * bids on one lot decided one after another, the same auction stream from both, streams of a revoked credential
 * ended on both, a second singleton refused, and a SIGKILL of any role during writes that loses no answered write
 * and leaves projections equal to a replay.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { importAnyRecord } from '../../app/features/intake.ts';
import { hashPassword } from '../../src/security/passwords.ts';
import { allProjections } from '../../app/features/projections.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import type { FileStore } from '../../src/ports/files.ts';
import type { JobQueue } from '../../src/ports/jobs.ts';
import { readResponse, type TestResponse } from '../support/server.ts';
import { openStream, type OpenStream } from '../support/sse.ts';
import { collectionsOf, replayed } from '../support/replay.ts';
import {
  call,
  exitWithin,
  freePort,
  ready,
  SERVICE_API_KEY,
  SERVICE_PASSWORD,
  sleep,
  startService,
  type ServiceProcess,
} from '../support/service-process.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const TENANTS = ['demo', 'demo2', 'demo-closed'];

/** The log, read models and files as any process of the shape sees them (opened by the spec itself). */
export interface ShapeStores {
  log: EventLog;
  documents: DocumentStore;
  files: FileStore;
  close(): Promise<void>;
}

/** An engine set the four roles run on. */
export interface TopologyShape {
  title: string;
  /** One DATA_DIR for every process (one machine), or one of its own for each (several machines). */
  sharedDataDir: boolean;
  /** Fails (or skips the suite, as the shape's convention says) when an engine it needs is unreachable. */
  check(ctx: Mocha.Context): Promise<void>;
  /** The environment every process of the run gets beside DATA_DIR, Redis and the role. */
  env: Record<string, string>;
  /** The DATA_DIR of a process started now. */
  dataDir(): string;
  open(): Promise<ShapeStores>;
  /** Drops what the run left in its engines and folders. */
  cleanup(): Promise<void>;
}

/** A real 1×1 grey PNG (signature, IHDR, IDAT, IEND), with a trailer that makes each upload's bytes its own. */
function png(trailer: string): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([Buffer.from(type, 'ascii'), data])));
    return Buffer.concat([length, Buffer.from(type, 'ascii'), data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header[8] = 8;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('tEXt', Buffer.from(`Comment\0${trailer}`, 'latin1')),
    chunk('IDAT', zlib.deflateSync(Buffer.from([0, 0x80]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A call as `call` makes it, with headers of its own (Idempotency-Key). */
async function callWith(base: string, method: string, url: string, token: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return readResponse(response);
}

/** A call whose connection may fail (its process was just killed): status 0 then. */
async function attempt(
  base: string,
  method: string,
  url: string,
  token: string,
  body?: unknown,
): Promise<TestResponse | { status: 0; text: string }> {
  try {
    return await call(base, method, url, token, body);
  } catch (error) {
    return { status: 0, text: String(error) };
  }
}

/** Retries `check` until it passes or `ms` pass (then its last failure is thrown). */
async function eventually(ms: number, check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(150);
    }
  }
}

export function describeTopology(shape: TopologyShape): void {
  describe(shape.title, function () {
    this.timeout(180_000);
    const prefix = `bidder-test-${randomUUID().slice(0, 8)}`;
    const procs: ServiceProcess[] = [];
    const dirs = new Map<ServiceProcess, string>();
    let checked = false;
    let stores: ShapeStores;

    /** A process of `role` on a free port (on `dataDir`: a restarted machine keeps its disk); stopped in after(). */
    async function start(role: string, dataDir = shape.dataDir()): Promise<ServiceProcess> {
      const env = { ...shape.env, REDIS_URL, REDIS_PREFIX: prefix, READ_YOUR_WRITES_TIMEOUT_MS: '1000', TRUST_PROXY: 'false' };
      const proc = startService({ role, port: await freePort(), dataDir, env });
      procs.push(proc);
      dirs.set(proc, dataDir);
      return proc;
    }

    /** SIGKILL, then the same role started again on the same DATA_DIR, ready. */
    async function killAndRestart(proc: ServiceProcess): Promise<ServiceProcess> {
      proc.child.kill('SIGKILL');
      await proc.exited;
      const again = await start(proc.role, dirs.get(proc));
      await ready(again);
      return again;
    }

    let projector: ServiceProcess;
    let worker: ServiceProcess;
    let api1: ServiceProcess;
    let api2: ServiceProcess;
    let anonymous: string;
    let member: string;
    let memberId: number;

    const outboxDir = () => path.join(dirs.get(worker)!, 'outbox');
    const watchedInLog = async () => {
      const events = await stores.log.readStream(`watchlist-demo-${memberId}`);
      return new Set(events.filter((e) => e.type === 'LotWatched').map((e) => (e.data as { lotId: number }).lotId));
    };

    before(async function () {
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      let redisUp = true;
      try {
        await redis.connect();
        await redis.ping();
      } catch {
        redisUp = false;
      } finally {
        redis.disconnect();
      }
      if (!redisUp) {
        if (process.env.SKIP_REDIS === '1') this.skip();
        throw new Error(`Redis is not reachable at ${REDIS_URL} (.ci/run starts it; SKIP_REDIS=1 skips this suite)`);
      }
      await shape.check(this);
      checked = true;
      projector = await start('projector');
      // A first start seeds the demo data into the shape's log before it answers.
      await ready(projector, 150_000);
      [worker, api1, api2] = [await start('worker'), await start('api'), await start('api')];
      await Promise.all([ready(worker), ready(api1), ready(api2)]);
      stores = await shape.open();
      const token = await call(api1.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' });
      expect(token.status, token.text).to.equal(200);
      anonymous = token.body.Token;
      const session = await call(api2.base, 'POST', '/v1/sessions', anonymous, { Email: 'bidder@example.com', Password: SERVICE_PASSWORD });
      expect(session.status, session.text).to.equal(200);
      member = session.body.Token;
      const me = await call(api1.base, 'GET', '/v1/me', member);
      expect(me.status, me.text).to.equal(200);
      memberId = Number(/\((\d+)\)$/.exec(me.body.FullNameWithId)?.[1]);
    });

    after(async function () {
      for (const proc of procs) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
      await Promise.all(procs.map((p) => exitWithin(p, 10_000)));
      await stores?.close();
      if (!checked) return;
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await shape.cleanup();
    });

    it('refuses a second projector, worker or all on the same engines with a clear message', async () => {
      const seconds = await Promise.all(['projector', 'worker', 'all'].map((role) => start(role)));
      for (const second of seconds) {
        const exit = await exitWithin(second, 30_000);
        expect(exit?.code ?? 'still running', `${second.role}: ${second.output()}`).to.equal(3);
        expect(second.output()).to.match(/already runs the (projector|worker) on these engines; a second one is refused/);
      }
    });

    it('shows a lot watched through one api in the watchlist read through the other, at once', async () => {
      const put = await call(api1.base, 'PUT', '/v1/me/watchlist/17', member, { Type: 'watch' });
      expect(put.status, put.text).to.equal(200);
      const list = await call(api2.base, 'GET', '/v1/me/watchlist', member);
      expect(list.status, list.text).to.equal(200);
      expect(list.body.Items.map((i: { Id: number }) => i.Id)).to.include(17);
    });

    it('counts wrong sign-ins spread over both api processes against one limit', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const proc = i % 2 === 0 ? api1 : api2;
        statuses.push(
          (await call(proc.base, 'POST', '/v1/sessions', anonymous, { Email: 'bidder@example.com', Password: `wrong-${i}` })).status,
        );
      }
      expect(statuses.filter((s) => s === 401)).to.have.length(5);
      expect(statuses.slice(5)).to.deep.equal([429, 429, 429]);
    });

    it('delivers a contact message once, through the worker', async () => {
      const subject = `Topology ${randomUUID()}`;
      const sent = await call(api2.base, 'POST', '/v1/contact', anonymous, {
        Name: 'Ada',
        Email: 'ada@example.org',
        Subject: subject,
        Message: 'Hello from one api.',
      });
      expect(sent.status, sent.text).to.be.oneOf([200, 202]);
      const mine = async () => (await readOutbox(outboxDir())).filter((m) => JSON.stringify(m).includes(subject));
      const deadline = Date.now() + 15_000;
      while ((await mine()).length === 0 && Date.now() < deadline) await sleep(100);
      await sleep(1000);
      expect(await mine()).to.have.length(1);
    });

    it('lists at once through one api an identity document uploaded through the other, whose file every process reads and the worker deletes', async () => {
      const bytes = png(randomUUID());
      const form = new FormData();
      form.append('DocumentType', 'passport');
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'passport.png');
      const uploaded = await readResponse(
        await fetch(`${api1.base}/v1/me/identity-documents`, {
          method: 'POST',
          headers: { 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${member}` },
          body: form,
        }),
      );
      expect(uploaded.status, uploaded.text).to.equal(200);
      const id: string = uploaded.body.Id;
      const listed = await call(api2.base, 'GET', '/v1/me/identity-documents', member);
      expect(listed.status, listed.text).to.equal(200);
      expect(listed.body.find((d: { Id: string }) => d.Id === id)).to.include({
        FileName: 'passport.png',
        ContentType: 'image/png',
        Size: bytes.length,
      });
      // The file as the shape's shared store holds it: byte for byte what was sent to the first api.
      const key = `identity-documents/${memberId}/${id}`;
      const stored = await stores.files.get('demo', key);
      expect(stored?.bytes.equals(bytes), 'the stored bytes').to.equal(true);
      if (!shape.sharedDataDir)
        for (const [proc, dir] of dirs)
          expect(fs.existsSync(path.join(dir, 'files')), `a files folder in the ${proc.role}'s DATA_DIR`).to.equal(false);
      // Removed through the other api: the worker (its own DATA_DIR in the PostgreSQL shape) deletes the file.
      const removed = await call(api2.base, 'DELETE', `/v1/me/identity-documents/${id}`, member);
      expect(removed.status, removed.text).to.equal(200);
      const again = await call(api1.base, 'GET', '/v1/me/identity-documents', member);
      expect(again.body.map((d: { Id: string }) => d.Id)).to.not.include(id);
      await eventually(15_000, async () => {
        expect(await stores.files.get('demo', key), 'the file after its removal').to.equal(null);
      });
    });

    it('loses nothing when the projector is killed with SIGKILL in the middle of writes and started again', async () => {
      const lots = Array.from({ length: 30 }, (_, i) => 100 + i);
      let done = false;
      const writes = (async () => {
        const statuses: number[] = [];
        for (const lot of lots) {
          statuses.push((await call((lot % 2 ? api1 : api2).base, 'PUT', `/v1/me/watchlist/${lot}`, member, { Type: 'watch' })).status);
          await sleep(50);
        }
        done = true;
        return statuses;
      })();
      await sleep(300);
      projector = await killAndRestart(projector);
      expect(done, 'writes still running when the projector was back').to.equal(false);
      const statuses = await writes;
      // Every command was stored; those made while no projector ran answered after their bounded wait.
      expect(
        statuses.every((s) => s === 200),
        String(statuses),
      ).to.equal(true);
      const logged = await watchedInLog();
      for (const lot of lots) expect(logged.has(lot), `lot ${lot} in the log`).to.equal(true);
      await ready(api1);
      await eventually(5000, async () => {
        const list = await call(api1.base, 'GET', '/v1/me/watchlist?PageSize=100', member);
        expect(list.status, list.text).to.equal(200);
        const watched = list.body.Items.map((i: { Id: number }) => i.Id);
        for (const lot of lots) expect(watched, `lot ${lot}`).to.include(lot);
      });
    });

    it('loses nothing when the worker is killed with SIGKILL in the middle of writes and started again: queued messages are delivered once', async () => {
      const lots = Array.from({ length: 20 }, (_, i) => 200 + i);
      const subjects: Array<{ subject: string; status: number; afterKill: boolean }> = [];
      let killed = false;
      const writes = (async () => {
        const statuses: number[] = [];
        for (const [n, lot] of lots.entries()) {
          const base = (n % 2 ? api1 : api2).base;
          statuses.push((await call(base, 'PUT', `/v1/me/watchlist/${lot}`, member, { Type: 'watch' })).status);
          if (n % 4 === 0) {
            const subject = `Killed worker ${randomUUID()}`;
            const afterKill = killed;
            const body = { Name: 'Ada', Email: 'ada@example.org', Subject: subject, Message: 'Sent around a SIGKILL.' };
            subjects.push({ subject, status: (await call(base, 'POST', '/v1/contact', anonymous, body)).status, afterKill });
          }
          await sleep(50);
        }
        return statuses;
      })();
      await sleep(300);
      worker.child.kill('SIGKILL');
      await worker.exited;
      killed = true;
      await sleep(300);
      worker = await start('worker', dirs.get(worker));
      await ready(worker);
      const statuses = await writes;
      expect(
        statuses.every((s) => s === 200),
        String(statuses),
      ).to.equal(true);
      expect(
        subjects.every((s) => s.status === 200 || s.status === 202),
        JSON.stringify(subjects),
      ).to.equal(true);
      const logged = await watchedInLog();
      for (const lot of lots) expect(logged.has(lot), `lot ${lot} in the log`).to.equal(true);
      const contacts = new Set(
        (await stores.log.readAll({ fromPosition: 0, maxCount: 1_000_000 }))
          .filter((e) => e.type === 'ContactMessageSubmitted')
          .map((e) => (e.data as { subject: string }).subject),
      );
      for (const { subject } of subjects) expect(contacts.has(subject), `${subject} in the log`).to.equal(true);
      // Messages sent while no worker ran waited in the queue: each is delivered once after the restart. One
      // that was in the killed worker's hands may come only after the queue's stalled-job check: never twice.
      const delivered = async (subject: string) =>
        (await readOutbox(outboxDir())).filter((m) => JSON.stringify(m).includes(subject)).length;
      await eventually(15_000, async () => {
        for (const { subject, afterKill } of subjects) if (afterKill) expect(await delivered(subject), subject).to.equal(1);
      });
      for (const { subject } of subjects) expect(await delivered(subject), subject).to.be.at.most(1);
    });

    it('loses no answered write when an api is killed with SIGKILL in the middle of writes, and serves again once started again', async () => {
      // Writes alternately through both, until a few went through the api started again (at most 30 s of them).
      const answers: Array<{ lot: number; status: number; via: string }> = [];
      let restarted = false;
      const writes = (async () => {
        const until = Date.now() + 30_000;
        for (let n = 0, after = 0; Date.now() < until && after < 6; n++) {
          const proc = n % 2 ? api1 : api2;
          if (restarted && proc === api2) after++;
          const lot = 300 + n;
          const answer = await attempt(proc.base, 'PUT', `/v1/me/watchlist/${lot}`, member, { Type: 'watch' });
          answers.push({ lot, status: answer.status, via: proc.base });
          await sleep(50);
        }
      })();
      await sleep(300);
      api2 = await killAndRestart(api2);
      restarted = true;
      await writes;
      // A write through the killed process has no answer (its connection broke); every other is 200.
      for (const a of answers) expect(a.status, JSON.stringify(a)).to.be.oneOf([200, 0]);
      expect(
        answers.filter((a) => a.status === 200 && a.via === api2.base),
        'writes through the restarted api',
      ).to.not.have.length(0);
      const logged = await watchedInLog();
      for (const a of answers) if (a.status === 200) expect(logged.has(a.lot), `lot ${a.lot} in the log`).to.equal(true);
      const list = await call(api2.base, 'GET', '/v1/me/watchlist?PageSize=100', member);
      expect(list.status, list.text).to.equal(200);
      const watched = list.body.Items.map((i: { Id: number }) => i.Id);
      for (const a of answers) if (a.status === 200) expect(watched, `lot ${a.lot} through the restarted api`).to.include(a.lot);
    });

    it("answers an Idempotency-Key's first answer again through the other api, and places the bid once", async () => {
      const registered = await call(api1.base, 'POST', '/v1/me/registrations/10', member);
      expect(registered.status, registered.text).to.equal(200);
      const page = await call(api1.base, 'GET', '/v1/lots?AuctionId=10&pageSize=100', anonymous);
      const lot = (
        page.body.Items as Array<{ Id: number; ReserveMet: boolean | null; EndTime: string; BidCount: number; MinimumNextBid: number }>
      )
        .filter((l) => l.ReserveMet === null && Date.parse(l.EndTime) > Date.now() + 3600_000 && l.BidCount === 0)
        .at(-1)!;
      expect(lot, 'a lot without a reserve and bids').to.not.equal(undefined);
      const key = { 'Idempotency-Key': `topology-${randomUUID()}` };
      const body = { LotId: lot.Id, MaxAmount: lot.MinimumNextBid };
      const first = await callWith(api1.base, 'POST', '/v1/me/bids', member, body, key);
      expect(first.status, first.text).to.equal(200);
      const repeated = await callWith(api2.base, 'POST', '/v1/me/bids', member, body, key);
      expect(repeated.status, repeated.text).to.equal(200);
      expect(repeated.body).to.deep.equal(first.body);
      const other = await callWith(api2.base, 'POST', '/v1/me/bids', member, { ...body, MaxAmount: lot.MinimumNextBid * 2 }, key);
      expect(other.status, other.text).to.equal(422);
      const history = await call(api2.base, 'GET', `/v1/lots/${lot.Id}/bids`, anonymous);
      expect(history.body.Items, "the lot's public bids").to.have.length(1);
    });

    it('decides parallel bids on one lot through both api processes one after another, and streams the same events from both', async () => {
      // Ten bidders of `demo`, imported with the CLI while the services run (ids apart from the demo's). One hash
      // for all (scrypt is slow by design: hashing each password would cost the import most of a second).
      const ids = Array.from({ length: 10 }, (_, i) => 3001 + i);
      const password = 'a long enough password 123';
      const passwordHash = await hashPassword(password);
      const emailOf = (id: number) => `topology-bidder-${id}@example.com`;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-topology-import-'));
      const file = path.join(dir, 'bidders.ndjson');
      const records = ids.map((id) => ({
        kind: 'member',
        tenant: 'demo',
        memberId: id,
        email: emailOf(id),
        passwordHash,
        firstName: 'Parallel',
        lastName: String(id),
        language: 'en',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      }));
      fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
      try {
        const importer = spawn(process.execPath, ['--import', 'tsx', 'app/cli/import.ts', file], {
          env: { ...process.env, ...shape.env, DATA_DIR: shape.dataDir(), REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        importer.stdout.on('data', (chunk) => (output += chunk));
        importer.stderr.on('data', (chunk) => (output += chunk));
        const code = await new Promise<number | null>((resolve) => importer.on('exit', (c) => resolve(c)));
        expect(code, output).to.equal(0);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }

      // Wrong passwords count against the sign-in limits (20 per address in 15 minutes, 5 used above), and an
      // account the projector has not read yet is one: wait on the address look-up (a limit of its own) for the
      // last account imported, then sign in the last one alone, then the others (earlier in the log) at once.
      const last = ids[ids.length - 1];
      const projected = Date.now() + 8000;
      while ((await call(api1.base, 'GET', `/v1/members/availability?email=${emailOf(last)}`, anonymous)).body?.Available !== false) {
        expect(Date.now(), `${emailOf(last)} not projected`).to.be.below(projected);
        await sleep(250);
      }
      const signIn = (id: number, n: number) =>
        call((n % 2 ? api2 : api1).base, 'POST', '/v1/sessions', anonymous, { Email: emailOf(id), Password: password });
      const tokens = new Map<number, string>();
      for (let tries = 1; ; tries++) {
        const session = await signIn(last, 0);
        if (session.status === 200) {
          tokens.set(last, session.body.Token);
          break;
        }
        // 403: the account is there, its confirmation not yet (the password was right: nothing counted).
        expect(session.status, session.text).to.equal(403);
        expect(tries, session.text).to.be.below(20);
        await sleep(250);
      }
      const sessions = await Promise.all(ids.slice(0, -1).map(signIn));
      for (const [i, session] of sessions.entries()) {
        expect(session.status, session.text).to.equal(200);
        tokens.set(ids[i], session.body.Token);
      }
      for (const [i, id] of ids.entries()) {
        const registered = await call((i % 2 ? api1 : api2).base, 'POST', '/v1/me/registrations/10', tokens.get(id)!);
        expect(registered.status, registered.text).to.equal(200);
      }

      // A lot of the timed auction without a reserve, open for days, not bid on yet.
      const page = await call(api1.base, 'GET', '/v1/lots?AuctionId=10&pageSize=100', anonymous);
      expect(page.status, page.text).to.equal(200);
      const target = (
        page.body.Items as Array<{ Id: number; ReserveMet: boolean | null; EndTime: string; BidCount: number; MinimumNextBid: number }>
      ).find((l) => l.ReserveMet === null && Date.parse(l.EndTime) > Date.now() + 3600_000 && l.BidCount === 0)!;
      expect(target, 'a lot without a reserve').to.not.equal(undefined);
      for (const id of ids) {
        const may = await call(api2.base, 'GET', `/v1/me/lots/${target.Id}/registration`, tokens.get(id)!);
        expect(may.body, may.text).to.include({ MayBid: true });
      }

      // The auction's stream, open through each api before the bids.
      const headers = { 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${anonymous}` };
      const streams: OpenStream[] = [];
      try {
        for (const proc of [api1, api2]) {
          const stream = await openStream(proc.base, '/v1/auctions/10/stream', headers);
          streams.push(stream);
          expect(stream.status).to.equal(200);
        }

        // Three distinct maxima each, a step of the largest increment apart (so the highest is always enough), sent
        // all at once and alternately through api1 and api2: both processes append to the lot's stream.
        const increments = (await call(api1.base, 'GET', '/v1/increments', anonymous)).body as Array<{ Increment: number }>;
        const step = Math.max(...increments.map((r) => r.Increment));
        const bids = ids.flatMap((id, i) =>
          [0, 1, 2].map((k) => ({ memberId: id, maxAmount: target.MinimumNextBid + step * (k * ids.length + i) })),
        );
        const answers = await Promise.all(
          bids.map((b, n) =>
            call((n % 2 ? api2 : api1).base, 'POST', '/v1/me/bids', tokens.get(b.memberId)!, { LotId: target.Id, MaxAmount: b.maxAmount }),
          ),
        );
        for (const [n, answer] of answers.entries()) {
          expect(answer.status, `${JSON.stringify(bids[n])}: ${answer.text}`).to.be.within(200, 499);
          if (answer.status !== 200) expect(answer.headers.get('content-type'), answer.text).to.match(/^application\/problem\+json/);
        }

        // Each member's highest accepted maximum; the leader must be the member with the highest of them.
        const accepted = new Map<number, number>();
        for (const [n, answer] of answers.entries())
          if (answer.status === 200) {
            expect(answer.body.MaxAmount).to.equal(bids[n].maxAmount);
            accepted.set(bids[n].memberId, Math.max(accepted.get(bids[n].memberId) ?? 0, answer.body.MaxAmount));
          }
        const ranked = [...accepted.entries()].sort((a, b) => b[1] - a[1]);
        expect(ranked.length, 'members with an accepted bid').to.be.at.least(2);
        const [[expectedLeader, leaderMax], [, secondMax]] = ranked;

        // Read through either api; the projector may lag a moment behind the last write.
        let bidCount = 0;
        await eventually(5000, async () => {
          const leaders: number[] = [];
          for (const [i, id] of ids.entries()) {
            const mine = await call((i % 2 ? api2 : api1).base, 'GET', '/v1/me/bids?status=leading', tokens.get(id)!);
            expect(mine.status, mine.text).to.equal(200);
            if (mine.body.Items.some((item: { LotId: number }) => item.LotId === target.Id)) leaders.push(id);
          }
          expect(leaders, 'the members leading the lot').to.deep.equal([expectedLeader]);
          const lot = (await call(api1.base, 'GET', `/v1/lots/${target.Id}`, anonymous)).body;
          expect(lot.CurrentBid, 'CurrentBid').to.be.at.least(secondMax).and.at.most(leaderMax);
          const history = await call(api2.base, 'GET', `/v1/lots/${target.Id}/bids`, anonymous);
          expect(history.body.Items, 'the public bids').to.have.length(lot.BidCount);
          expect(Math.max(...history.body.Items.map((item: { Amount: number }) => item.Amount))).to.equal(lot.CurrentBid);
          bidCount = lot.BidCount;
        });

        // Each public bid once on each stream, with the same ids and data in the same order.
        const [one, other] = await Promise.all(streams.map((s) => s.events(bidCount, 10_000)));
        await sleep(300);
        const seen = streams.map((s) => s.messages.filter((m) => m.event !== undefined));
        expect(seen[0], 'no more events than public bids').to.have.length(bidCount);
        expect(seen[1]).to.deep.equal(seen[0]);
        expect(other).to.deep.equal(one);
        expect(one.every((m) => m.event === 'bid' && JSON.parse(m.data!).LotId === target.Id)).to.equal(true);
        expect(one.map((m) => JSON.parse(m.data!).CurrentBid)).to.deep.equal(
          [...one.map((m) => JSON.parse(m.data!).CurrentBid)].sort((a, b) => a - b),
        );
      } finally {
        for (const stream of streams) stream.close();
      }
    });

    it('ends the streams of a revoked credential on both api processes within a second: a password reset through one, an Api-Key withdrawn by intake', async () => {
      const password = 'a long enough password 123';
      const email = 'topology-stream-ends@example.com';
      const record = { kind: 'member', tenant: 'demo', memberId: 3101, email, passwordHash: await hashPassword(password) };
      await importAnyRecord(stores.log, {
        ...record,
        firstName: 'Stream',
        lastName: 'Ender',
        language: 'en',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
      let token = '';
      await eventually(10_000, async () => {
        const session = await call(api1.base, 'POST', '/v1/sessions', anonymous, { Email: email, Password: password });
        expect(session.status, session.text).to.equal(200);
        token = session.body.Token;
      });
      const headers = (bearer: string, apiKey = SERVICE_API_KEY) => ({ 'Api-Key': apiKey, Authorization: `Bearer ${bearer}` });
      const endOf = (stream: OpenStream) =>
        Promise.race([
          stream.ended.then(() => Date.now()),
          sleep(5000).then(() => Promise.reject(new Error('the stream did not end within 5 s'))),
        ]);
      const lastEvent = (stream: OpenStream) => stream.messages.filter((m) => m.event).at(-1);

      const memberStreams = [
        await openStream(api1.base, '/v1/me/stream', headers(token)),
        await openStream(api2.base, '/v1/me/stream', headers(token)),
      ];
      const key = `topology-stream-key-${randomUUID()}`;
      await importAnyRecord(stores.log, { kind: 'apiKey', key, name: 'stream ends', tenants: ['demo'] });
      await eventually(10_000, async () => {
        for (const proc of [api1, api2])
          expect((await fetch(`${proc.base}/v1/auctions`, { headers: headers(anonymous, key) })).status).to.equal(200);
      });
      const keyStreams = [
        await openStream(api1.base, '/v1/auctions/10/stream', headers(anonymous, key)),
        await openStream(api2.base, '/v1/auctions/10/stream', headers(anonymous, key)),
      ];
      const bystander = await openStream(api2.base, '/v1/auctions/10/stream', headers(anonymous));
      try {
        for (const stream of [...memberStreams, ...keyStreams, bystander]) expect(stream.status).to.equal(200);
        // The reset asked for through one api (the key mailed by the worker), confirmed through the other.
        expect((await call(api1.base, 'POST', '/v1/password-resets', anonymous, { Email: email })).status).to.equal(200);
        let resetKey = '';
        await eventually(15_000, async () => {
          const mail = (await readOutbox(outboxDir())).filter((m) => m.To === email).at(-1);
          expect(mail, 'the reset mail').to.not.equal(undefined);
          resetKey = /^([A-Za-z0-9_-]{32})$/m.exec(mail!.Body)![1];
        });
        const memberEnds = memberStreams.map(endOf);
        const confirmed = await call(api2.base, 'POST', '/v1/password-resets/confirmation', anonymous, {
          Email: email,
          Key: resetKey,
          Password: 'another long enough password 456',
        });
        expect(confirmed.status, confirmed.text).to.equal(200);
        const answered = Date.now();
        const memberAts = await Promise.all(memberEnds);
        for (const at of memberAts) expect(at - answered).to.be.below(1000);
        const reset = (await stores.log.readStream('member-demo-3101')).filter((e) => e.type === 'MemberPasswordChanged').at(-1)!;

        const keyEnds = keyStreams.map(endOf);
        const withdrawn = Date.now();
        await importAnyRecord(stores.log, { kind: 'apiKey', key, name: 'stream ends', tenants: ['demo2'] });
        const keyAts = await Promise.all(keyEnds);
        for (const at of keyAts) expect(at - withdrawn).to.be.below(1000);
        // STREAM_END_TIMINGS=1: from the reset's event, and from the key's withdrawal, to each process's end (api1, api2).
        if (process.env.STREAM_END_TIMINGS)
          console.log(
            `      ends after a password reset: ${memberAts.map((at) => at - Date.parse(reset.created)).join(', ')} ms; ` +
              `after the Api-Key's withdrawal: ${keyAts.map((at) => at - withdrawn).join(', ')} ms`,
          );

        for (const stream of [...memberStreams, ...keyStreams]) {
          expect(lastEvent(stream)?.event).to.equal('end');
          expect(JSON.parse(lastEvent(stream)!.data!).Code).to.equal('credential-revoked');
        }
        const stillOpen = await Promise.race([bystander.ended.then(() => false), sleep(300).then(() => true)]);
        expect(stillOpen, 'a stream of another key').to.equal(true);
      } finally {
        for (const stream of [...memberStreams, ...keyStreams, bystander]) stream.close();
      }
    });

    it('has every process serving, and read models equal to a replay of the log', async () => {
      for (const proc of [projector, worker, api1, api2]) await ready(proc, 10_000);
      const projections = allProjections({ jobs: {} as JobQueue, documents: stores.documents }).filter((p) => p.kind === 'documents');
      const head = await stores.log.headPosition();
      await eventually(15_000, async () => {
        for (const p of projections) expect(await stores.documents.getCheckpoint(p.name), `${p.name}'s checkpoint`).to.be.at.least(head);
      });
      const [live, replay] = [
        await collectionsOf(stores.documents, projections, [...TENANTS]),
        await replayed(stores.log, projections, [...TENANTS]),
      ];
      expect(replay).to.deep.equal(live);
    });
  });
}
