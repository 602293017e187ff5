// The feed over a log that gives events as stored (EventLog.readStored): the data's text passed on as it is gives
// the same bytes as the data parsed, its private fields left out and serialised again, for every event type.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { eventCatalog } from '../../app/features/events.ts';
import type { EventDefinition } from '../../src/events/define.ts';
import { EventFeed } from '../../src/events/feed.ts';
import { feedItem, feedItemJson, feedItemsJson, type FeedEvent } from '../../src/events/feed-items.ts';
import { PositionCodec } from '../../src/events/position.ts';
import type { EventLog, NewEvent } from '../../src/ports/event-log.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feed-stored-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Values whose JSON a careless pass-through or concatenation would get wrong. */
const awkward = {
  note: 'é "quoted" \\ back\nslash \u2028 \u0000 😀 </script>',
  numbers: [1e21, 0.1, -0, 5e-7, 2 ** 53, null, true],
  '7': 'an integer-like key (comes first)',
  nested: { '': 'empty key' },
};

/**
 * Data of the type: with every private field given, with none, or with none but fields of those names deeper in
 * (not private: the text is parsed all the same).
 */
type Variant = 'private' | 'plain' | 'deeper';
const dataOf = (definition: EventDefinition, tenant: string, n: number, variant: Variant) => {
  const named = (value: (field: string) => string) => Object.fromEntries((definition.private ?? []).map((field) => [field, value(field)]));
  return {
    tenant,
    n,
    ...awkward,
    ...(variant === 'private' ? named((field) => `private ${field} ${n}`) : {}),
    ...(variant === 'deeper' ? { deeper: named((field) => `not private: ${field}`) } : {}),
  };
};

describe('the event feed over stored events (EventLog.readStored)', () => {
  const codec = new PositionCodec(Buffer.from('stored feed spec secret'));
  // A type at version 2: its events stored at version 1 would be upcast, so never passed on as stored.
  const Upcast: EventDefinition = { ...eventCatalog.find((d) => !d.operator && !d.private)!, type: 'UpcastSpecHappened', version: 2 };
  const definitions = [...eventCatalog, Upcast];
  const publicTypes = definitions.filter((d) => !d.operator);
  let file: string;
  let log: SqliteEventLog;
  let storedReads = 0;

  before(async () => {
    file = path.join(dir, 'log.sqlite');
    log = new SqliteEventLog(file);
    let n = 0;
    for (const definition of definitions) {
      const events: NewEvent[] = (['private', 'plain', 'deeper'] as const).flatMap((variant) =>
        ['a', 'b'].map((tenant) => ({
          type: definition.type,
          version: definition.version,
          data: dataOf(definition, tenant, ++n, variant),
          metadata: { tenant, correlationId: `c-${n}` },
        })),
      );
      await log.appendToStream(`spec-${definition.type}`, events);
    }
    // Text another writer stored with spaces (no append of this log writes any): an old version of the upcast type
    // (tenant a), and the current version of a type without private fields (tenant c).
    const db = new Database(file);
    const insert = db.prepare(
      'INSERT INTO events (stream_id, revision, type, version, data, metadata, created) VALUES (?, 0, ?, ?, ?, ?, ?)',
    );
    insert.run('spec-old', Upcast.type, 1, '{ "tenant": "a", "n": 1,  "old": [1.50, 2E3] }', '{"tenant":"a"}', new Date().toISOString());
    insert.run('spec-spaced', Upcast.type, 2, '{ "tenant": "c", "n": 1 }', '{"tenant":"c"}', new Date().toISOString());
    db.close();
    const readStored = log.readStored.bind(log);
    log.readStored = (options) => {
      storedReads += 1;
      return readStored(options);
    };
  });
  after(async () => log?.close());

  /** A view of the log without readStored: the feed then reads events parsed, as before it. */
  const parsedOnly = (of: EventLog): EventLog => Object.assign(Object.create(of) as EventLog, { readStored: undefined });

  const readAll = async (feed: EventFeed, tenant: string, types: ReadonlySet<string> | null, limit: number) => {
    const events: FeedEvent[] = [];
    for (let after = 0; ;) {
      const page = await feed.forTenant(tenant).page({ after, types, limit, waitMs: 0 });
      events.push(...page.events);
      if (!page.hasMore) return events;
      after = page.events.at(-1)!.position;
    }
  };

  it('gives every type the bytes the parsed event gives, private fields left out, page by page and by types', async () => {
    const stored = new EventFeed(log, definitions, codec);
    const parsed = new EventFeed(parsedOnly(log), definitions, codec);
    for (const [types, limit] of [
      [null, 7],
      [null, 1000],
      [new Set(['LotCatalogued', 'MemberSignedUp', Upcast.type]), 3],
    ] as const) {
      storedReads = 0;
      const got = await readAll(stored, 'a', types, limit);
      expect(storedReads, 'pages read as stored').to.be.greaterThan(0);
      const expected = await readAll(parsed, 'a', types, limit);
      // As bytes (the paged answer's), the stored data's own; as each item's text (the streams' and webhooks').
      expect(Buffer.concat(feedItemsJson(got)).toString('utf8')).to.equal(JSON.stringify(expected.map(feedItem)));
      expect(got.map(feedItemJson)).to.deep.equal(expected.map((e) => JSON.stringify(feedItem(e))));
      // The data as objects too (what the auction and member streams read).
      expect(got.map((e) => e.data)).to.deep.equal(expected.map((e) => e.data));
    }
    const items = (await readAll(stored, 'a', null, 1000)).map(feedItemJson);
    // Every public type, three times, and the old version; tenant b's never.
    expect(items).to.have.length(publicTypes.length * 3 + 1);
    for (const definition of publicTypes) {
      const ofType = items.map((text) => JSON.parse(text)).filter((item) => item.Type === definition.type);
      expect(ofType, definition.type).to.have.length(definition === Upcast ? 4 : 3);
      for (const item of ofType) {
        expect(item.Data.tenant).to.equal('a');
        for (const field of definition.private ?? []) expect(item.Data, `${definition.type}.${field}`).to.not.have.property(field);
      }
    }
    expect(items.join('\n')).to.not.include('"private ');
    // The old version: parsed and written again (its spaces gone), at the version it was stored with.
    const old = items.find((text) => text.includes('"Stream":"spec-old"'))!;
    expect(old).to.include('"Version":1,').and.include('"Data":{"tenant":"a","n":1,"old":[1.5,2000]}}');
  });

  it('gives the stored text as it is but where private fields were left out or an older version was stored', async () => {
    const stored = new EventFeed(log, definitions, codec);
    const db = new Database(file, { readonly: true });
    const texts = new Map(db.prepare('SELECT position, data FROM events').raw().all() as Array<[number, string]>);
    db.close();
    const events = await readAll(stored, 'a', null, 1000);
    const asStored = events.filter((e) => feedItemJson(e).endsWith(`"Data":${texts.get(e.position)}}`)).map((e) => `${e.type} ${e.data.n}`);
    // Every event but those whose private fields were left out, and the old version (parsed: its spaces gone).
    const expected = events
      .filter((e) => !texts.get(e.position)!.includes('"private ') && e.streamId !== 'spec-old')
      .map((e) => `${e.type} ${e.data.n}`);
    expect(asStored).to.deep.equal(expected);
    expect(asStored.filter((e) => e.startsWith('LotCatalogued '))).to.have.length(2);
    // A text another writer stored with spaces is passed on with them (the log's text is taken as JSON.stringify gave it).
    const [spaced] = await readAll(stored, 'c', null, 10);
    expect(feedItemJson(spaced)).to.include('"Data":{ "tenant": "c", "n": 1 }}');
  });
});
