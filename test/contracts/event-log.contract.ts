import { expect } from 'chai';
import type { EventLog, NewEvent } from '../../src/ports/event-log.ts';
import { WrongExpectedVersionError } from '../../src/ports/event-log.ts';
import { STORABLE_KEYS, STORABLE_TEXTS } from '../support/storable-texts.ts';

const event = (n: number, tenant = 't1'): NewEvent => ({
  type: 'Something',
  version: 1,
  data: { tenant, n },
  metadata: { tenant },
});

/**
 * What every event log adapter must do (the embedded SQLite log now; EventStoreDB when its URL is set).
 * Stream names are made unique per test so a shared server can run the suite.
 */
export function eventLogContract(name: string, makeLog: () => Promise<EventLog>) {
  describe(`EventLog contract: ${name}`, () => {
    let log: EventLog;
    let prefix: string;
    beforeEach(async () => {
      log = await makeLog();
      prefix = `s${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    });
    afterEach(async () => log.close());

    it('reads an absent stream as empty', async () => {
      expect(await log.readStream(`${prefix}-absent`)).to.deep.equal([]);
    });

    it('appends to a new stream with no_stream and reads the events back in order with revisions from 0', async () => {
      const result = await log.appendToStream(`${prefix}-a`, [event(1), event(2)], { expectedRevision: 'no_stream' });
      expect(result.nextExpectedRevision).to.equal(1);
      const read = await log.readStream(`${prefix}-a`);
      expect(read.map((e) => [e.revision, e.data.n, e.type, e.version, e.metadata.tenant])).to.deep.equal([
        [0, 1, 'Something', 1, 't1'],
        [1, 2, 'Something', 1, 't1'],
      ]);
      expect(read[1].position).to.equal(result.position);
      expect(read[0].position).to.be.below(read[1].position);
      expect(Date.parse(read[0].created)).to.be.a('number').and.not.NaN;
    });

    it('refuses a stale expected revision and keeps the stream unchanged', async () => {
      await log.appendToStream(`${prefix}-b`, [event(1)], { expectedRevision: 'no_stream' });
      await log.appendToStream(`${prefix}-b`, [event(2)], { expectedRevision: 0 });
      let error: unknown;
      try {
        await log.appendToStream(`${prefix}-b`, [event(3)], { expectedRevision: 0 });
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(WrongExpectedVersionError);
      expect((await log.readStream(`${prefix}-b`)).map((e) => e.data.n)).to.deep.equal([1, 2]);
    });

    it('refuses no_stream on an existing stream and stream_exists on an absent one', async () => {
      await log.appendToStream(`${prefix}-c`, [event(1)]);
      await expectRejection(log.appendToStream(`${prefix}-c`, [event(2)], { expectedRevision: 'no_stream' }));
      await expectRejection(log.appendToStream(`${prefix}-d`, [event(1)], { expectedRevision: 'stream_exists' }));
      expect(await log.readStream(`${prefix}-d`)).to.deep.equal([]);
    });

    it('lets exactly one of two concurrent appends with the same expected revision win', async () => {
      await log.appendToStream(`${prefix}-e`, [event(0)], { expectedRevision: 'no_stream' });
      const results = await Promise.allSettled([
        log.appendToStream(`${prefix}-e`, [event(1)], { expectedRevision: 0 }),
        log.appendToStream(`${prefix}-e`, [event(2)], { expectedRevision: 0 }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      expect(await log.readStream(`${prefix}-e`)).to.have.length(2);
    });

    describe('appends decided under the write lock (optional: appendDecided)', () => {
      /** Decides the next count on the stream's newer events (from `known` on), or nothing past `upTo`. */
      const next =
        (known: number, upTo = Infinity) =>
        (newer: { data: Record<string, unknown> }[]) => {
          const n = newer.length > 0 ? Number(newer[newer.length - 1].data.n) : known;
          return n >= upTo ? [] : [event(n + 1)];
        };

      it("hands decide the stream's events from the revision asked for and appends its answer after them", async function () {
        if (!log.appendDecided) this.skip();
        const stream = `${prefix}-x1`;
        await log.appendToStream(stream, [event(1), event(2), event(3)], { expectedRevision: 'no_stream' });
        const seen: number[][] = [];
        const result = await log.appendDecided!(stream, 1, (newer) => {
          seen.push(newer.map((e) => e.revision));
          return next(1)(newer);
        });
        expect(seen).to.deep.equal([[1, 2]]);
        const read = await log.readStream(stream);
        expect(read.map((e) => e.data.n)).to.deep.equal([1, 2, 3, 4]);
        expect(result.nextExpectedRevision).to.equal(3);
        expect(result.position).to.equal(read[3].position);
        // Nothing newer: decide gets none; an answer of nothing appends nothing.
        const none = await log.appendDecided!(stream, 4, (newer) => (expect(newer).to.deep.equal([]), []));
        expect(none.nextExpectedRevision).to.equal(3);
        expect(await log.readStream(stream)).to.have.length(4);
      });

      it('lets concurrent decided appends to one stream each decide on the ones before it: none is lost or doubled', async function () {
        if (!log.appendDecided) this.skip();
        const stream = `${prefix}-x2`;
        // All asked for from the same (empty) state, as writers that each read the stream before the others wrote.
        await Promise.all(Array.from({ length: 5 }, () => log.appendDecided!(stream, 0, next(0))));
        expect((await log.readStream(stream)).map((e) => [e.revision, e.data.n])).to.deep.equal([
          [0, 1],
          [1, 2],
          [2, 3],
          [3, 4],
          [4, 5],
        ]);
      });

      it('fails an append whose decide throws alone, with nothing of it written', async function () {
        if (!log.appendDecided) this.skip();
        const stream = `${prefix}-x3`;
        const outcomes = await Promise.allSettled([
          log.appendDecided!(stream, 0, next(0)),
          log.appendDecided!(stream, 0, () => {
            throw new Error('refused');
          }),
          log.appendToStream(`${prefix}-x4`, [event(1)], { expectedRevision: 'no_stream' }),
          log.appendDecided!(stream, 0, next(0)),
        ]);
        expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
        expect(((outcomes[1] as PromiseRejectedResult).reason as Error).message).to.equal('refused');
        expect((await log.readStream(stream)).map((e) => e.data.n)).to.deep.equal([1, 2]);
        expect(await log.readStream(`${prefix}-x4`)).to.have.length(1);
      });
    });

    it('reads $all after a position, in position order, a page at a time', async () => {
      const start = await log.headPosition();
      await log.appendToStream(`${prefix}-f`, [event(1), event(2)]);
      await log.appendToStream(`${prefix}-g`, [event(3)]);
      const page1 = await log.readAll({ fromPosition: start, maxCount: 2 });
      const page2 = await log.readAll({ fromPosition: page1[1].position, maxCount: 2 });
      expect([...page1, ...page2].map((e) => e.data.n)).to.deep.equal([1, 2, 3]);
      expect(await log.headPosition()).to.equal(page2[0].position);
    });

    it('reads only the events of the types asked for, where it can filter, and says how far it read', async function () {
      if (!log.readTypes) this.skip();
      const typed = (type: string, n: number): NewEvent => ({ ...event(n), type });
      const start = await log.headPosition();
      await log.appendToStream(`${prefix}-t`, [
        typed('Wanted', 1),
        typed('Other', 2),
        typed('Wanted', 3),
        typed('Other', 4),
        typed('Other', 5),
      ]);
      const head = await log.headPosition();
      const page = await log.readTypes!({ fromPosition: start, maxCount: 1, types: ['Wanted'] });
      expect(page.events.map((e) => e.data.n)).to.deep.equal([1]);
      // A full page covers up to its last event.
      expect(page.position).to.equal(page.events[0].position);
      const rest = await log.readTypes!({ fromPosition: page.position, maxCount: 10, types: ['Wanted'] });
      expect(rest.events.map((e) => [e.type, e.data.n])).to.deep.equal([['Wanted', 3]]);
      // A shorter one read up to the head: the two Other events at the end only move a reader to it.
      expect(rest.position).to.equal(head);
      const none = await log.readTypes!({ fromPosition: head, maxCount: 10, types: ['Wanted'] });
      expect(none).to.deep.equal({ events: [], position: head });
    });

    it('reads events as stored, where it can: the data as the text its append wrote, the tenant, and how far it read', async function () {
      if (!log.readStored) this.skip();
      const start = await log.headPosition();
      // Text a round trip through JSON could change, were it not kept as written: escapes, non-ASCII, numbers, key order.
      const data = {
        tenant: 't2',
        z: 'é "quoted" \\ \u2028 \u0000 😀 </script>',
        a: { '10': [1.5, 1e21, -0, 0.1, null, true], '2': 'two', b: [] },
        n: 3,
      };
      const typed = (type: string, n: number): NewEvent => ({ ...event(n), type });
      await log.appendToStream(`${prefix}-r`, [
        { type: 'Wanted', version: 2, data, metadata: { tenant: 't2', correlationId: 'c-1' } },
        typed('Other', 2),
        typed('Wanted', 3),
      ]);
      const head = await log.headPosition();
      const parsed = await log.readAll({ fromPosition: start, maxCount: 10 });
      const stored = await log.readStored!({ fromPosition: start, maxCount: 10 });
      expect(stored.position).to.equal(head);
      expect(stored.events.map((e) => [e.streamId, e.revision, e.position, e.type, e.version, e.created, e.tenant])).to.deep.equal(
        parsed.map((e) => [e.streamId, e.revision, e.position, e.type, e.version, e.created, e.metadata.tenant]),
      );
      // The text is what the parsed event serialises to, byte for byte.
      const texts = stored.events.map((e) => e.dataJson.toString('utf8'));
      expect(texts).to.deep.equal(parsed.map((e) => JSON.stringify(e.data)));
      expect(JSON.parse(texts[0])).to.deep.equal({ ...data, a: { ...data.a, '10': [1.5, 1e21, 0, 0.1, null, true] } });

      const page = await log.readStored!({ fromPosition: start, maxCount: 1, types: ['Wanted'] });
      expect(page.events.map((e) => e.dataJson.toString('utf8'))).to.deep.equal([JSON.stringify(parsed[0].data)]);
      // As readTypes: a full page covers up to its last event, a shorter one up to the head.
      expect(page.position).to.equal(page.events[0].position);
      const rest = await log.readStored!({ fromPosition: page.position, maxCount: 10, types: ['Wanted'] });
      expect(rest.events.map((e) => [e.type, JSON.parse(e.dataJson.toString('utf8')).n])).to.deep.equal([['Wanted', 3]]);
      expect(rest.position).to.equal(head);
      expect(await log.readStored!({ fromPosition: head, maxCount: 10, types: ['Wanted'] })).to.deep.equal({ events: [], position: head });
      expect(await log.readStored!({ fromPosition: head, maxCount: 10 })).to.deep.equal({ events: [], position: head });
    });

    it('stores and gives back, byte for byte, every text an event may hold (emoji, RTL and combining marks, lines, the longest field) and every key', async () => {
      const start = await log.headPosition();
      const data = { tenant: 't1', texts: STORABLE_TEXTS, list: Object.values(STORABLE_TEXTS), entries: STORABLE_KEYS };
      await log.appendToStream(`${prefix}-texts`, [{ type: 'Texts', version: 1, data, metadata: { tenant: 't1' } }]);
      const [read] = await log.readStream(`${prefix}-texts`);
      const [all] = await log.readAll({ fromPosition: start, maxCount: 1 });
      for (const event of [read, all]) {
        expect(event.data).to.deep.equal(data);
        for (const [name, text] of Object.entries(STORABLE_TEXTS))
          expect(Buffer.from((event.data.texts as Record<string, string>)[name]).equals(Buffer.from(text)), name).to.equal(true);
        expect(Object.keys(event.data.entries as object)).to.deep.equal(Object.keys(STORABLE_KEYS));
      }
      if (log.readStored) {
        const stored = await log.readStored({ fromPosition: start, maxCount: 1 });
        expect(JSON.parse(stored.events[0].dataJson.toString('utf8'))).to.deep.equal(data);
      }
    });

    it('delivers stored events to a subscription, then live ones, in order, and stops on unsubscribe', async () => {
      const start = await log.headPosition();
      await log.appendToStream(`${prefix}-h`, [event(1)]);
      const subscription = log.subscribeToAll({ fromPosition: start, batchSize: 10 });
      const seen: number[] = [];
      const consumer = (async () => {
        for await (const batch of subscription) {
          seen.push(...batch.map((e) => e.data.n as number));
          if (seen.length >= 3) break;
        }
      })();
      await new Promise((r) => setTimeout(r, 50));
      await log.appendToStream(`${prefix}-h`, [event(2)]);
      await log.appendToStream(`${prefix}-i`, [event(3)]);
      await Promise.race([consumer, new Promise((_, reject) => setTimeout(() => reject(new Error('no live delivery')), 3000))]);
      expect(seen).to.deep.equal([1, 2, 3]);
      await subscription.unsubscribe();
    });

    it('hands the next batch only when the consumer asks for it (back-pressure)', async () => {
      const start = await log.headPosition();
      for (let i = 0; i < 5; i++) await log.appendToStream(`${prefix}-j`, [event(i)]);
      const subscription = log.subscribeToAll({ fromPosition: start, batchSize: 2 });
      const iterator = subscription[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.value.map((e: { data: { n: number } }) => e.data.n)).to.deep.equal([0, 1]);
      const second = await iterator.next();
      expect(second.value.map((e: { data: { n: number } }) => e.data.n)).to.deep.equal([2, 3]);
      await subscription.unsubscribe();
    });
  });
}

async function expectRejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(WrongExpectedVersionError);
    return;
  }
  throw new Error('expected a WrongExpectedVersionError');
}
