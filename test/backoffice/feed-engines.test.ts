// The event feed over each log engine (BACKOFFICE.md: "Works on every engine"): the embedded SQLite log and the
// EventStoreDB adapter (over the in-memory client that behaves as the documented one).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { z } from 'zod';
import { defineEvent, toNewEvent } from '../../src/events/define.ts';
import { EventFeed } from '../../src/events/feed.ts';
import { feedEventId } from '../../src/events/feed-items.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { EsdbEventLog } from '../../src/adapters/esdb/esdb-event-log.ts';
import { FakeEsdbClient } from '../support/fake-esdb-client.ts';
import { PositionCodec } from '../../src/events/position.ts';

const ThingHappened = defineEvent({
  type: 'ThingHappened',
  version: 1,
  stream: 'thing-{tenant}-{id}',
  private: ['secret'],
  description: 'spec',
  schema: z.object({ tenant: z.string(), id: z.number(), secret: z.string() }),
});
const OtherHappened = defineEvent({
  type: 'OtherHappened',
  version: 1,
  stream: 'other-{tenant}',
  description: 'spec',
  schema: z.object({ tenant: z.string(), n: z.number() }),
});
const KeyIssued = defineEvent({
  type: 'KeyIssued',
  version: 1,
  stream: 'key-{tenant}',
  operator: true,
  description: 'spec',
  schema: z.object({ tenant: z.string() }),
});

describe('defineEvent private fields', () => {
  it('must be fields of the schema', () => {
    expect(() =>
      defineEvent({
        type: 'BadDefined',
        version: 1,
        stream: 's',
        description: 'd',
        private: ['nope' as never],
        schema: z.object({ tenant: z.string() }),
      }),
    ).to.throw(/private field nope is not in its schema/);
  });
});

describe('feed positions', () => {
  const codec = new PositionCodec(Buffer.from('a secret of the spec, 32 bytes or more', 'utf8'));
  const [a, b] = [codec.forTenant('a'), codec.forTenant('b')];

  it('are opaque strings of each house that come back as the log position, small or large, the same every time', () => {
    for (const position of [0, 1, 123_456, 2 ** 40 + 17, Number.MAX_SAFE_INTEGER]) {
      const text = a.token(position);
      expect(text).to.match(/^[A-Za-z0-9_-]{22}$/);
      expect(a.read(text)).to.equal(position);
      expect(a.token(position)).to.equal(text);
      expect(new PositionCodec(Buffer.from('a secret of the spec, 32 bytes or more', 'utf8')).forTenant('a').read(text)).to.equal(position);
    }
  });

  it("tell nothing of the log's numbering: neighbours share no prefix, and another house's or a forged one is not read", () => {
    const [p, q] = [a.token(3322), a.token(3324)];
    expect(p.slice(0, 4)).to.not.equal(q.slice(0, 4));
    expect(b.read(p), "another house's").to.equal(null);
    expect(b.token(3322)).to.not.equal(p);
    expect(a.read(Buffer.from('p:3322', 'utf8').toString('base64url')), 'the old p: form').to.equal(null);
    expect(a.read(`${p.slice(0, 21)}${p[21] === 'A' ? 'B' : 'A'}`), 'one changed').to.equal(null);
    for (const bad of ['', 'x', '!'.repeat(22), `${p}A`]) expect(a.read(bad), bad).to.equal(null);
    expect(() => a.parse('nope', 'query.after')).to.throw(/after is not a position the feed gave/);
    expect(a.parse('', 'query.after')).to.equal(0);
  });
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feed-engines-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

for (const [name, open] of [
  ['embedded SQLite', () => new SqliteEventLog(path.join(dir, `log-${Math.random()}.sqlite`), { pollMs: 20 })],
  ['EventStoreDB adapter', () => new EsdbEventLog(new FakeEsdbClient())],
] as Array<[string, () => EventLog]>) {
  describe(`the event feed over the ${name} log`, () => {
    let log: EventLog;
    let stopping: AbortController;
    let feed: EventFeed;
    const append = async (tenant: string, id: number) => {
      await log.appendToStream(`thing-${tenant}-${id}`, [toNewEvent(ThingHappened, { tenant, id, secret: `s-${id}` })]);
      await log.appendToStream(`key-${tenant}`, [toNewEvent(KeyIssued, { tenant })]);
    };
    beforeEach(async () => {
      log = open();
      stopping = new AbortController();
      feed = new EventFeed(log, [ThingHappened, OtherHappened, KeyIssued], new PositionCodec(Buffer.from('spec secret')), stopping.signal);
      for (let i = 1; i <= 10; i++) {
        await append('a', i);
        await append('b', i);
      }
    });
    afterEach(async () => log.close());

    it("gives the tenant's events page by page, each once and in order, without private fields or operator records", async () => {
      const ids: number[] = [];
      let after = 0;
      let pages = 0;
      for (;;) {
        const page = await feed.forTenant('a').page({ after, types: null, limit: 3, waitMs: 0 });
        pages += 1;
        for (const event of page.events) {
          expect(event.type).to.equal('ThingHappened');
          expect(event.data).to.deep.equal({ tenant: 'a', id: event.data.id });
          expect(event.id).to.equal(feedEventId(event.streamId, event.revision));
          ids.push(event.data.id as number);
        }
        after = page.events.at(-1)?.position ?? after;
        if (!page.hasMore) break;
      }
      expect(ids).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(pages).to.equal(4);
      expect((await feed.forTenant('a').page({ after: 0, types: new Set(['OtherHappened']), limit: 3, waitMs: 0 })).events).to.deep.equal(
        [],
      );
    });

    it("waits for the tenant's next event, ignores others', and ends the wait when the client leaves or the process stops", async () => {
      const head = await log.headPosition();
      const tenantA = feed.forTenant('a');
      let started = Date.now();
      const waiting = tenantA.page({ after: head, types: null, limit: 10, waitMs: 5000 });
      setTimeout(() => void append('b', 11).then(() => append('a', 11)), 100);
      const page = await waiting;
      expect(page.events.map((e) => e.data.id)).to.deep.equal([11]);
      expect(Date.now() - started).to.be.below(2000);

      started = Date.now();
      expect((await tenantA.page({ after: page.events[0].position, types: null, limit: 10, waitMs: 300 })).events).to.deep.equal([]);
      expect(Date.now() - started).to.be.within(250, 2000);

      started = Date.now();
      const gone = new AbortController();
      const left = tenantA.page({ after: page.events[0].position, types: null, limit: 10, waitMs: 10_000, signal: gone.signal });
      setTimeout(() => gone.abort(), 100);
      expect((await left).events).to.deep.equal([]);
      expect(Date.now() - started).to.be.below(2000);

      started = Date.now();
      const stopped = tenantA.page({ after: page.events[0].position, types: null, limit: 10, waitMs: 10_000 });
      setTimeout(() => stopping.abort(), 100);
      expect((await stopped).events).to.deep.equal([]);
      expect(Date.now() - started).to.be.below(2000);
    });

    it('starts its subscription again for the next waiter when the log did not answer the first (a database restarting)', async () => {
      const head = await log.headPosition();
      const tenantA = feed.forTenant('a');
      const headPosition = log.headPosition;
      log.headPosition = async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      };
      try {
        const failed = await tenantA.page({ after: head, types: null, limit: 10, waitMs: 5000 }).then(
          () => null,
          (error: Error) => error,
        );
        expect(failed?.message).to.match(/ECONNREFUSED/);
      } finally {
        log.headPosition = headPosition;
      }
      const started = Date.now();
      const waiting = tenantA.page({ after: head, types: null, limit: 10, waitMs: 5000 });
      setTimeout(() => void append('a', 12), 100);
      expect((await waiting).events.map((e) => e.data.id)).to.deep.equal([12]);
      expect(Date.now() - started).to.be.below(2000);
    });
  });
}

describe('the event feed when EventStoreDB ends its subscription (a dropped connection, a restart, a leader change)', () => {
  // The client ends a subscription with an error or without one and never subscribes again by itself; every
  // waiting page, auction stream and webhook of the process waits on the feed's one subscription.
  for (const [how, error] of [
    ['with an error', new Error('14 UNAVAILABLE: connection dropped')],
    ['without one', undefined],
  ] as const) {
    it(`still wakes a waiting page with the next event after the client ended it ${how}`, async () => {
      const fake = new FakeEsdbClient();
      const log = new EsdbEventLog(fake);
      const stopping = new AbortController();
      const feed = new EventFeed(log, [ThingHappened], new PositionCodec(Buffer.from('spec secret')), stopping.signal).forTenant('a');
      const append = (id: number) => log.appendToStream(`thing-a-${id}`, [toNewEvent(ThingHappened, { tenant: 'a', id, secret: 's' })]);
      try {
        await append(1);
        const first = feed.page({ after: await log.headPosition(), types: null, limit: 10, waitMs: 3000 });
        setTimeout(() => void append(2), 50);
        expect((await first).events.map((e) => e.data.id)).to.deep.equal([2]);

        fake.endSubscriptions(error);
        const started = Date.now();
        const waiting = feed.page({ after: await log.headPosition(), types: null, limit: 10, waitMs: 3000 });
        setTimeout(() => void append(3), 300);
        expect((await waiting).events.map((e) => e.data.id)).to.deep.equal([3]);
        expect(Date.now() - started).to.be.below(2500);
      } finally {
        stopping.abort();
        await log.close();
      }
    });
  }
});
