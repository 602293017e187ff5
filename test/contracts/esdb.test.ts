import { expect } from 'chai';
import { EsdbEventLog } from '../../src/adapters/esdb/esdb-event-log.ts';
import { eventIds } from '../../src/adapters/esdb/event-ids.ts';
import { notTaken } from '../../src/adapters/esdb/faults.ts';
import { EsdbStreamNotFoundError, EsdbWrongExpectedVersionError, NO_STREAM, START } from '../../src/adapters/esdb/client.ts';
import type { NewEvent, RecordedEvent } from '../../src/ports/event-log.ts';
import { WrongExpectedVersionError } from '../../src/ports/event-log.ts';
import { FakeEsdbClient } from '../support/fake-esdb-client.ts';
import { PositionCodec } from '../../src/events/position.ts';
import { unavailableFrom, ValidationError } from '../../src/errors.ts';
import { eventLogContract } from './event-log.contract.ts';
import { UnavailableError, UnknownError } from '@eventstore/db-client';

const url = process.env.EVENTSTOREDB_URL;

eventLogContract('EventStoreDB adapter over the in-memory client', async () => new EsdbEventLog(new FakeEsdbClient()));

if (url) {
  eventLogContract('EventStoreDB at EVENTSTOREDB_URL (real server)', () => EsdbEventLog.connect(url));
} else {
  describe('EventLog contract: EventStoreDB against a real server (EVENTSTOREDB_URL unset: skipped)', () => {
    before(function () {
      this.skip();
    });
    it('runs the event log contract against the server at EVENTSTOREDB_URL', () => undefined);
  });
}

const event = (n: number, extra: Partial<NewEvent> = {}): NewEvent => ({
  type: 'Something',
  version: 1,
  data: { n },
  metadata: { tenant: 't1' },
  ...extra,
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('EventStoreDB event log adapter (over the in-memory client)', () => {
  let fake: FakeEsdbClient;
  let log: EsdbEventLog;
  beforeEach(() => {
    fake = new FakeEsdbClient();
    log = new EsdbEventLog(fake);
  });
  afterEach(() => log.close());

  describe('appends', () => {
    it('answers a retried append with the same events and expected revision without writing them twice', async () => {
      await log.appendToStream('s', [event(0)], { expectedRevision: 'no_stream' });
      fake.loseNextAnswer();
      const events = [event(1), event(2)];
      await rejection(log.appendToStream('s', events, { expectedRevision: 0 }));
      const retried = await log.appendToStream('s', events, { expectedRevision: 0 });
      const stored = await log.readStream('s');
      expect(stored.map((e) => e.data.n)).to.deep.equal([0, 1, 2]);
      expect(retried).to.deep.equal({ nextExpectedRevision: 2, position: stored[2].position });
    });

    it('derives event ids from stream, expected revision, index and content, and random ones for any', () => {
      const a = eventIds('s', 4, [event(1), event(2)]);
      expect(eventIds('s', 4, [event(1), event(2)])).to.deep.equal(a);
      expect(a[0]).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(a[0]).to.not.equal(a[1]);
      expect(eventIds('s', 4, [event(9)])[0]).to.not.equal(a[0]);
      expect(eventIds('s', 5, [event(1)])[0]).to.not.equal(a[0]);
      expect(eventIds('t', 4, [event(1)])[0]).to.not.equal(a[0]);
      expect(eventIds('s', 'no_stream', [event(1)])).to.deep.equal(eventIds('s', 'no_stream', [event(1)]));
      expect(eventIds('s', 'any', [event(1)])).to.not.deep.equal(eventIds('s', 'any', [event(1)]));
    });

    it('refuses a different append on a stale revision rather than taking it for a retry of the first', async () => {
      await log.appendToStream('s', [event(1)], { expectedRevision: 'no_stream' });
      const error = await rejection(log.appendToStream('s', [event(2)], { expectedRevision: 'no_stream' }));
      expect(error).to.be.instanceOf(WrongExpectedVersionError);
      expect((await log.readStream('s')).map((e) => e.data.n)).to.deep.equal([1]);
    });

    it('writes two equal appends with expected revision any as two appends', async () => {
      await log.appendToStream('s', [event(1)]);
      await log.appendToStream('s', [event(1)]);
      expect(await log.readStream('s')).to.have.length(2);
    });

    it("turns the client's wrong expected version into the port's, with expected and actual revisions", async () => {
      await log.appendToStream('s', [event(1), event(2)]);
      const stale = await rejection(log.appendToStream('s', [event(3)], { expectedRevision: 5 }));
      expect(stale).to.be.instanceOf(WrongExpectedVersionError).and.include({ streamId: 's', expected: 5, actual: 1 });
      const exists = await rejection(log.appendToStream('s', [event(3)], { expectedRevision: 'no_stream' }));
      expect(exists).to.include({ expected: 'no_stream', actual: 1 });
      const absent = await rejection(log.appendToStream('other', [event(3)], { expectedRevision: 'stream_exists' }));
      expect(absent).to.be.instanceOf(WrongExpectedVersionError);
      expect(absent).to.include({ expected: 'stream_exists', actual: 'no_stream' });
    });

    it('checks the expected revision of an empty append itself and writes nothing', async () => {
      const onAbsent = await log.appendToStream('s', [], { expectedRevision: 'no_stream' });
      expect(onAbsent).to.deep.equal({ nextExpectedRevision: -1, position: 0 });
      const written = await log.appendToStream('s', [event(1)]);
      const onExisting = await log.appendToStream('s', [], { expectedRevision: 0 });
      expect(onExisting).to.deep.equal({ nextExpectedRevision: 0, position: written.position });
      const stale = await rejection(log.appendToStream('s', [], { expectedRevision: 'no_stream' }));
      expect(stale).to.be.instanceOf(WrongExpectedVersionError);
      expect(await log.readStream('s')).to.have.length(1);
    });

    it('refuses an expected revision that is not a non-negative integer', async () => {
      for (const expectedRevision of [-1, 1.5]) {
        expect(await rejection(log.appendToStream('s', [event(1)], { expectedRevision }))).to.be.instanceOf(RangeError);
      }
    });
  });

  describe('events', () => {
    it("round-trips tenant, correlation id and schema version through the event's metadata JSON", async () => {
      const metadata = { tenant: 't9', correlationId: 'req-1' };
      await log.appendToStream('s', [event(1, { type: 'LotWatched', version: 3, metadata })]);
      const [read] = await log.readStream('s');
      expect(read).to.include({ type: 'LotWatched', version: 3, streamId: 's', revision: 0 });
      expect(read.metadata).to.deep.equal({ tenant: 't9', correlationId: 'req-1' });
      const [raw] = await collect(fake.readStream('s'));
      expect(raw.event?.metadata).to.deep.equal({ ...metadata, schemaVersion: 3, $correlationId: 'req-1' });
      expect(raw.event?.data).to.deep.equal({ n: 1 });
    });

    it('reads an event without a correlation id back without one', async () => {
      await log.appendToStream('s', [event(1)]);
      const [read] = await log.readStream('s');
      expect(read.metadata).to.deep.equal({ tenant: 't1' });
      expect(read.version).to.equal(1);
    });

    it('gives the creation time in RFC 3339, UTC', async () => {
      await log.appendToStream('s', [event(1)]);
      const [read] = await log.readStream('s');
      expect(read.created).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Math.abs(Date.parse(read.created) - Date.now())).to.be.below(5000);
    });

    it('reads a stream from a revision', async () => {
      await log.appendToStream('s', [event(0), event(1), event(2)]);
      expect((await log.readStream('s', { fromRevision: 1 })).map((e) => e.revision)).to.deep.equal([1, 2]);
      expect(await log.readStream('s', { fromRevision: 3 })).to.deep.equal([]);
    });
  });

  describe('positions', () => {
    it('are commit positions: byte offsets that grow with what was written, not by one per event', async () => {
      const result = await log.appendToStream('s', [event(1), event(2)]);
      const [first, second] = await log.readStream('s');
      expect(second.position).to.equal(result.position);
      expect(second.position - first.position).to.be.above(1);
      const [raw] = await collect(fake.readStream('s', { fromRevision: 1n }));
      expect(raw.event?.position).to.deep.equal({ commit: BigInt(second.position), prepare: BigInt(second.position) });
    });

    it('refuses, with a clear error, a position beyond Number.MAX_SAFE_INTEGER', async () => {
      await log.close();
      fake = new FakeEsdbClient({ firstPosition: BigInt(Number.MAX_SAFE_INTEGER) - 10n, systemNoise: false });
      log = new EsdbEventLog(fake);
      const error = await rejection(log.appendToStream('s', [event(1)]));
      expect(error).to.be.instanceOf(RangeError);
      expect((error as Error).message).to.match(/position \d+ is outside 0\.\.Number\.MAX_SAFE_INTEGER/);
      expect(await rejection(log.readAll({ fromPosition: 0, maxCount: 10 }))).to.be.instanceOf(RangeError);
    });

    it('start a subscription after the given position, so a checkpoint resumes without repeats', async () => {
      await log.appendToStream(
        's',
        [0, 1, 2, 3, 4].map((n) => event(n)),
      );
      const stored = await log.readStream('s');
      const subscription = log.subscribeToAll({ fromPosition: stored[2].position, batchSize: 10 });
      const { value } = await subscription[Symbol.asyncIterator]().next();
      expect(value.map((e: RecordedEvent) => e.data.n)).to.deep.equal([3, 4]);
      await subscription.unsubscribe();
    });
  });

  describe('$all', () => {
    it('leaves system events out of readAll, and pages across them', async () => {
      for (let n = 0; n < 3; n++) {
        await log.appendToStream(`s${n}`, [event(n)]);
        for (let i = 0; i < 5; i++) fake.writeSystemEvent();
      }
      const all = await log.readAll({ fromPosition: 0, maxCount: 100 });
      expect(all.map((e) => e.data.n)).to.deep.equal([0, 1, 2]);
      const seen: number[] = [];
      for (let from = 0; ;) {
        const page = await log.readAll({ fromPosition: from, maxCount: 1 });
        if (page.length === 0) break;
        seen.push(page[0].data.n as number);
        from = page[0].position;
      }
      expect(seen).to.deep.equal([0, 1, 2]);
    });

    it('gives as head the position of the newest event that is no system event, and 0 when there is none', async () => {
      expect(await log.headPosition()).to.equal(0);
      const result = await log.appendToStream('s', [event(1)]);
      for (let i = 0; i < 250; i++) fake.writeSystemEvent();
      expect(await log.headPosition()).to.equal(result.position);
    });

    it('subscribes with the server-side filter, so the client never receives system events', async () => {
      await log.appendToStream('s', [event(0), event(1)]);
      for (let i = 0; i < 20; i++) fake.writeSystemEvent('$settings', '$settings');
      await log.appendToStream('t', [event(2)]);
      const subscription = log.subscribeToAll({ fromPosition: 0, batchSize: 100 });
      const { value } = await subscription[Symbol.asyncIterator]().next();
      expect(value.map((e: RecordedEvent) => e.data.n)).to.deep.equal([0, 1, 2]);
      expect(fake.pushedBySubscriptions).to.equal(3);
      await subscription.unsubscribe();
    });
  });

  describe('subscriptions', () => {
    it('hand over what is buffered without waiting for a full batch', async () => {
      await log.appendToStream('s', [event(0), event(1), event(2)]);
      const subscription = log.subscribeToAll({ fromPosition: 0, batchSize: 1000 });
      const started = Date.now();
      const { value } = await subscription[Symbol.asyncIterator]().next();
      expect(value).to.have.length(3);
      expect(Date.now() - started).to.be.below(200);
      await subscription.unsubscribe();
    });

    it('read ahead of the consumer by about one batch at most (back-pressure)', async () => {
      for (let n = 0; n < 20; n++) {
        await log.appendToStream(
          `s${n}`,
          [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => event(n * 10 + i)),
        );
      }
      const subscription = log.subscribeToAll({ fromPosition: 0, batchSize: 10 });
      const iterator = subscription[Symbol.asyncIterator]();
      const first = await iterator.next();
      await new Promise((r) => setTimeout(r, 50));
      expect(first.value.map((e: RecordedEvent) => e.data.n)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(fake.pushedBySubscriptions).to.be.at.most(30);
      const second = await iterator.next();
      expect(second.value.map((e: RecordedEvent) => e.data.n)).to.deep.equal([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
      await subscription.unsubscribe();
    });

    it('open the server call only when the first batch is asked for', async () => {
      const subscription = log.subscribeToAll({ fromPosition: 0 });
      expect(fake.openSubscriptions).to.equal(0);
      const pending = subscription[Symbol.asyncIterator]().next();
      await log.appendToStream('s', [event(1)]);
      expect((await pending).value).to.have.length(1);
      expect(fake.openSubscriptions).to.equal(1);
      await subscription.unsubscribe();
      expect(fake.openSubscriptions).to.equal(0);
    });

    it('end a read waiting for live events when unsubscribed', async () => {
      const subscription = log.subscribeToAll({ fromPosition: 0 });
      const pending = subscription[Symbol.asyncIterator]().next();
      await new Promise((r) => setTimeout(r, 20));
      await subscription.unsubscribe();
      expect(await pending).to.deep.equal({ value: undefined, done: true });
    });

    it('are all ended by close, which then refuses further calls', async () => {
      const subscription = log.subscribeToAll({ fromPosition: 0 });
      const pending = subscription[Symbol.asyncIterator]().next();
      await new Promise((r) => setTimeout(r, 20));
      await log.close();
      expect(await pending).to.deep.equal({ value: undefined, done: true });
      expect(fake.openSubscriptions).to.equal(0);
      expect(await rejection(log.readStream('s'))).to.match(/closed/);
    });

    it('pass a failure of the server call on to the consumer, who subscribes again from its checkpoint', async () => {
      await log.appendToStream('s', [event(0), event(1)]);
      const subscription = log.subscribeToAll({ fromPosition: 0, batchSize: 10 });
      const iterator = subscription[Symbol.asyncIterator]();
      const first = await iterator.next();
      const pending = iterator.next();
      await new Promise((r) => setTimeout(r, 20));
      fake.endSubscriptions(new Error('14 UNAVAILABLE: connection dropped'));
      expect(await rejection(pending)).to.match(/UNAVAILABLE/);
      expect(fake.openSubscriptions).to.equal(0);
      await log.appendToStream('s', [event(2)]);
      const again = log.subscribeToAll({ fromPosition: first.value[first.value.length - 1].position, batchSize: 10 });
      const { value } = await again[Symbol.asyncIterator]().next();
      expect(value.map((e: RecordedEvent) => e.data.n)).to.deep.equal([2]);
      await again.unsubscribe();
    });

    it('report a call the server ended as an error rather than as the end of the log', async () => {
      await log.appendToStream('s', [event(0)]);
      const subscription = log.subscribeToAll({ fromPosition: 0, batchSize: 10 });
      const iterator = subscription[Symbol.asyncIterator]();
      await iterator.next();
      const pending = iterator.next();
      await new Promise((r) => setTimeout(r, 20));
      fake.endSubscriptions();
      expect(await rejection(pending)).to.match(/subscription to \$all ended/);
    });

    it('refuse a batch size that is not a positive integer', () => {
      expect(() => log.subscribeToAll({ fromPosition: 0, batchSize: 0 })).to.throw(RangeError);
    });
  });

  describe('a server away (down, restarting or not answering)', () => {
    const timed = async (call: () => Promise<unknown>) => {
      const started = Date.now();
      const error = await rejection(call());
      return { error, ms: Date.now() - started, answer: unavailableFrom(error) };
    };

    it('fails every call at once with the client’s UnavailableError, answered 503 with Retry-After, and serves again when it is back', async () => {
      await log.appendToStream('s', [event(0)]);
      fake.setOutage('unavailable');
      for (const call of [
        () => log.appendToStream('s', [event(1)]),
        () => log.readAll({ fromPosition: 0, maxCount: 10 }),
        () => log.readStream('s'),
        () => log.headPosition(),
      ]) {
        const { error, ms, answer } = await timed(call);
        expect((error as { type?: string }).type).to.equal('unavailable');
        expect(ms).to.be.below(1000);
        expect(answer?.status).to.equal(503);
        expect(answer?.extra.retryAfterSeconds).to.be.greaterThan(0);
      }
      fake.setOutage(null);
      await log.appendToStream('s', [event(1)]);
      expect((await log.readStream('s')).map((e) => e.data.n)).to.deep.equal([0, 1]);
    });

    it('bounds a call it never answers by the deadline, reads too (the client gives reads none), answered 503', async () => {
      const bounded = new EsdbEventLog(fake, 300);
      await bounded.appendToStream('s', [event(0)]);
      fake.setOutage('hung');
      for (const call of [
        () => bounded.readAll({ fromPosition: 0, maxCount: 10 }),
        () => bounded.readStream('s'),
        () => bounded.headPosition(),
        () => bounded.appendToStream('s', [event(1)]),
      ]) {
        const { error, ms, answer } = await timed(call);
        expect((error as { type?: string }).type).to.equal('deadline-exceeded');
        expect(ms).to.be.within(250, 1500);
        expect(answer?.status).to.equal(503);
      }
      fake.setOutage(null);
      expect((await bounded.readStream('s')).map((e) => e.data.n)).to.deep.equal([0]);
    });
    for (const [outage, text] of [
      ['not-ready', 'Server Is Not Ready'],
      ['busy', 'Server Is Busy'],
    ] as const)
      it(`answers an append the server does not take (${text}: starting, electing a leader, overloaded) 503 with Retry-After`, async () => {
        await log.appendToStream('s', [event(0)]);
        fake.setOutage(outage);
        const error = await rejection(log.appendToStream('s', [event(1)], { expectedRevision: 0 }));
        expect((error as Error).message).to.contain(text);
        const answer = unavailableFrom(error);
        expect(answer?.status).to.equal(503);
        expect(answer?.extra.retryAfterSeconds).to.be.greaterThan(0);
        // Reads are refused with gRPC's UNAVAILABLE by the server itself, already a 503.
        expect(unavailableFrom(await rejection(log.readStream('s')))?.status).to.equal(503);
        fake.setOutage(null);
        await log.appendToStream('s', [event(1)], { expectedRevision: 0 });
        expect((await log.readStream('s')).map((e) => e.data.n)).to.deep.equal([0, 1]);
      });

    it('tells every NotHandled answer of a batch append (the server took nothing) from other unknown errors', () => {
      for (const reason of [
        'Server Is Not Ready',
        'Server Is Busy',
        'No leader info available in response',
        'Unknown NotHandledReason (7)',
      ]) {
        const error = notTaken(new UnknownError(undefined, `Could not recognize ${reason}`));
        expect(error, reason).to.be.instanceOf(UnavailableError);
        expect(unavailableFrom(error)?.status).to.equal(503);
      }
      for (const other of [new UnknownError(), new UnknownError(undefined, 'Could not recognize Bad Request'), new Error('Server Is Busy')])
        expect(notTaken(other), other.message).to.equal(null);
    });

    it('ends an append the server never answers at the bound, 503, though the client gives the call no deadline', async function () {
      this.timeout(30_000);
      const bounded = new EsdbEventLog(fake, 200);
      await bounded.appendToStream('s', [event(0)]);
      fake.setOutage('hung');
      const error = await rejection(bounded.appendToStream('s', [event(1)], { expectedRevision: 0 }));
      expect((error as { type?: string }).type).to.equal('deadline-exceeded');
      expect((error as Error).message).to.match(/append .*200 ms/);
      expect(unavailableFrom(error)?.status).to.equal(503);
      // The append the server still holds fails when the client is disposed: nothing is left unhandled.
      await bounded.close();
    });
  });

  describe('positions', () => {
    it('are read from only where a record starts: the server (as the fake) fails at an offset inside one', async () => {
      await log.appendToStream('s', [event(0), event(1)]);
      const events = await log.readAll({ fromPosition: 0, maxCount: 10 });
      const [first, second] = events.map((e) => e.position);
      expect((await log.readAll({ fromPosition: first, maxCount: 10 })).map((e) => e.data.n)).to.deep.equal([1]);
      expect(await rejection(log.readAll({ fromPosition: second + 1, maxCount: 10 }))).to.match(/no record starts at commit position/);
      const inside = log.subscribeToAll({ fromPosition: second - 1, batchSize: 10 });
      expect(await rejection(inside[Symbol.asyncIterator]().next())).to.match(/no record starts at commit position/);
    });

    it('that a client sends never reach the log unless the feed issued them: a forged or altered one is a 400', async () => {
      await log.appendToStream('thing-a-1', [event(0, { metadata: { tenant: 'a' } })]);
      const codec = new PositionCodec(Buffer.from('a secret of the spec, 32 bytes or more', 'utf8')).forTenant('a');
      const [recorded] = await log.readAll({ fromPosition: 0, maxCount: 10 });
      const issued = codec.token(recorded.position);
      expect(codec.parse(issued, 'query.after')).to.equal(recorded.position);
      const forged = codec.token(recorded.position + 1).slice(0, 21) + (issued[21] === 'A' ? 'B' : 'A');
      for (const bad of [forged, String(recorded.position + 1), Buffer.from(`p:${recorded.position + 1}`).toString('base64url')])
        expect(() => codec.parse(bad, 'query.after'), bad).to.throw(ValidationError);
    });
  });
});

describe('the in-memory EventStoreDB client (what the adapter tests assume of the real one)', () => {
  let fake: FakeEsdbClient;
  const data = (type: string, id = crypto.randomUUID()) => ({
    id,
    contentType: 'application/json' as const,
    type,
    data: {},
    metadata: {},
  });
  beforeEach(() => {
    fake = new FakeEsdbClient({ systemNoise: false });
  });
  afterEach(() => fake.dispose());

  it('fails the read of an absent stream with StreamNotFoundError when it is iterated', async () => {
    const read = fake.readStream('absent');
    expect(await rejection(collect(read))).to.be.instanceOf(EsdbStreamNotFoundError);
  });

  it('throws WrongExpectedVersionError with the current revision as a bigint', async () => {
    await fake.appendToStream('s', [data('A')], { expectedRevision: NO_STREAM });
    const error = await rejection(fake.appendToStream('s', [data('A')], { expectedRevision: NO_STREAM }));
    expect(error).to.be.instanceOf(EsdbWrongExpectedVersionError).and.include({ actualVersion: 0n });
  });

  it('answers an append repeating the ids written after its expected revision with success, no position', async () => {
    const events = [data('A'), data('B')];
    const first = await fake.appendToStream('s', events, { expectedRevision: NO_STREAM });
    const again = await fake.appendToStream('s', events, { expectedRevision: NO_STREAM });
    expect(first.position).to.not.equal(undefined);
    expect(again).to.deep.equal({ success: true, nextExpectedRevision: 1n, position: undefined });
    expect(fake.idsOf('s')).to.deep.equal(events.map((e) => e.id));
  });

  it('answers a batch append it cannot take with the UnknownError the client makes of NotHandled, reads with UnavailableError', async () => {
    for (const [outage, append, read] of [
      ['not-ready', 'Could not recognize Server Is Not Ready', '14 UNAVAILABLE: Server Is Not Ready'],
      ['busy', 'Could not recognize Server Is Busy', '14 UNAVAILABLE: Server Is Too Busy'],
    ] as const) {
      fake.setOutage(outage);
      const refused = await rejection(fake.appendToStream('s', [data('A')]));
      expect(refused).to.be.instanceOf(UnknownError).and.include({ type: 'unknown', message: append });
      const failed = await rejection(collect(fake.readAll({ fromPosition: START })));
      expect(failed).to.be.instanceOf(UnavailableError).and.include({ message: read });
    }
    fake.setOutage(null);
    expect(fake.idsOf('s')).to.deep.equal([]);
  });

  it('never answers an append while hung (the client sets the call no deadline), until disposed', async () => {
    fake.setOutage('hung');
    const pending = fake.appendToStream('s', [data('A')], { deadline: 50 });
    const first = await Promise.race([
      pending.then(
        () => 'answered',
        () => 'failed',
      ),
      new Promise((r) => setTimeout(r, 300, 'waiting')),
    ]);
    expect(first).to.equal('waiting');
    await fake.dispose();
    expect(await rejection(pending))
      .to.be.instanceOf(UnknownError)
      .and.include({ message: '1 CANCELLED: Cancelled on client' });
  });

  it('reads $all forwards from a position including the event at it, with system events', async () => {
    await fake.appendToStream('s', [data('A'), data('B')]);
    const all = await collect(fake.readAll({ fromPosition: START }));
    expect(all.map((r) => r.event?.type)).to.deep.equal(['$settings', 'A', 'B']);
    const from = all[1].event!.position;
    expect((await collect(fake.readAll({ fromPosition: from }))).map((r) => r.event?.type)).to.deep.equal(['A', 'B']);
  });

  it('starts a subscription after its position and filters on the server', async () => {
    await fake.appendToStream('s', [data('A'), data('B'), data('C')]);
    const [, a] = await collect(fake.readAll({ fromPosition: START }));
    const filter = { filterOn: 'eventType' as const, regex: '^[^$]', checkpointInterval: 1 };
    const subscription = fake.subscribeToAll({ fromPosition: a.event!.position, filter });
    const seen: string[] = [];
    for await (const resolved of subscription) {
      seen.push(resolved.event!.type);
      if (seen.length === 2) break;
    }
    expect(seen).to.deep.equal(['B', 'C']);
  });
});

describe('EventStoreDB event log adapter over the real client', () => {
  it('fails to connect with a message that names the server but not the password', async function () {
    this.timeout(30_000);
    const nowhere = 'esdb://admin:s3cret@127.0.0.1:1?tls=false&defaultDeadline=3000';
    const error = await rejection(EsdbEventLog.connect(nowhere));
    expect((error as Error).message).to.match(/^EventStoreDB at esdb:\/\/\*\*\*@127\.0\.0\.1:1/);
    expect((error as Error).message).to.not.include('s3cret');
  });
});
