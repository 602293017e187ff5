// BACKOFFICE.md "The event feed", the paged list: GET /backoffice/v1/events.
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import { eventCatalog } from '../../app/features/events.ts';
import { publicData } from '../../src/events/define.ts';
import { feedEventId } from '../../src/events/feed-items.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';

interface Item {
  Id: string;
  Type: string;
  Version: number;
  Stream: string;
  Revision: number;
  Position: string;
  Time: string;
  Data: Record<string, unknown>;
}

const definitions = new Map(eventCatalog.map((d) => [d.type, d]));

describe('the back office event feed', () => {
  let server: TestServer;
  let translation = 0;
  const feed = (query: string, tenant: 'demo' | 'demo2' = 'demo'): Promise<TestResponse> =>
    server.request('GET', `/backoffice/v1/events${query}`, {
      apiKey: null,
      headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys[tenant]}` },
    });
  /** Appends one event of the tenant (its interface dictionary, replaced). */
  const appendFor = (tenant: string) =>
    importRecord(server.runtime.services.log, {
      kind: 'translations',
      tenant,
      language: 'en',
      entries: { 'spec.counter': String(++translation) },
    });
  /** Reads page after page from `after` until HasMore is false: every item, and the last Next. */
  const readAll = async (query: string, after?: string) => {
    const items: Item[] = [];
    let next = after;
    let pages = 0;
    for (;;) {
      const page = await feed(`?${query}${next ? `&after=${next}` : ''}`);
      expect(page.status, page.text).to.equal(200);
      items.push(...page.body.Items);
      next = page.body.Next;
      pages += 1;
      if (!page.body.HasMore) return { items, next: next!, pages };
    }
  };
  /** The tenant's events in the log, as the feed must give them (no operator records). */
  const logEventsOf = async (tenant: string) =>
    (await server.events()).filter(
      (e) => (e as unknown as { metadata: { tenant: string } }).metadata.tenant === tenant && !definitions.get(e.type)!.operator,
    );

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it('gives every event of the tenant once, in log order, page by page from the start, while others are appended', async () => {
    let appending = true;
    const appender = (async () => {
      for (let i = 0; appending && i < 200; i++) {
        await appendFor(i % 2 ? 'demo' : 'demo2');
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const first = await readAll('limit=137');
    appending = false;
    await appender;
    const rest = await readAll('limit=1000', first.next);
    const items = [...first.items, ...rest.items];
    expect(first.pages).to.be.greaterThan(3);

    const expected = await logEventsOf('demo');
    expect(items.map((i) => `${i.Stream}@${i.Revision}`)).to.deep.equal(
      expected.map((e) => `${e.streamId}@${(e as unknown as { revision: number }).revision}`),
    );
    expect(new Set(items.map((i) => i.Id)).size).to.equal(items.length);
    expect(new Set(items.map((i) => i.Position)).size).to.equal(items.length);
    for (const item of items) {
      expect(item.Id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(item.Data.tenant).to.equal('demo');
      expect(item.Time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(item.Version).to.equal(1);
    }
    // Nothing more after the end; Next stays where it was, and the same page gives the same ids.
    const end = await feed(`?after=${rest.next}`);
    expect(end.body).to.deep.equal({ Items: [], Next: rest.next, HasMore: false });
    const again = await feed('?limit=5');
    expect(again.body.Items.map((i: Item) => i.Id)).to.deep.equal(items.slice(0, 5).map((i) => i.Id));
    expect(again.body.Next).to.equal(items[4].Position);
    expect(again.body.HasMore).to.equal(true);
  });

  it('answers a page as the bytes JSON.stringify gives for its items, each made from its event in the log', async () => {
    const demo = server.runtime.feed!.forTenant('demo');
    const events = (await logEventsOf('demo')) as unknown as RecordedEvent[];
    const items = events.map((e) => ({
      Id: feedEventId(e.streamId, e.revision),
      Type: e.type,
      Version: e.version,
      Stream: e.streamId,
      Revision: e.revision,
      Position: demo.token(e.position),
      Time: e.created,
      Data: publicData(definitions.get(e.type)!, e.data),
    }));
    expect(new Set(items.map((i) => i.Type)).size).to.be.greaterThan(5);
    // Page after page of the whole feed (the last one ends it).
    for (let start = 0; start < items.length; start += 1000) {
      const page = await feed(`?limit=1000${start > 0 ? `&after=${items[start - 1].Position}` : ''}`);
      const slice = items.slice(start, start + 1000);
      expect(page.text).to.equal(JSON.stringify({ Items: slice, Next: slice.at(-1)!.Position, HasMore: start + 1000 < items.length }));
    }
    const end = await feed(`?after=${items.at(-1)!.Position}`);
    expect(end.text).to.equal(JSON.stringify({ Items: [], Next: items.at(-1)!.Position, HasMore: false }));
  });

  it("never gives another tenant's events, nor the operator's records (Api-Keys, back-office keys, tenants, applications)", async () => {
    const { items } = await readAll('limit=1000');
    expect(items.length).to.be.greaterThan(100);
    const operatorTypes = eventCatalog.filter((d) => d.operator).map((d) => d.type);
    expect(operatorTypes).to.include.members(['ApiKeyIssued', 'BackOfficeKeyIssued', 'BackOfficeKeyRevoked', 'TenantConfigured']);
    for (const item of items) {
      expect(item.Data.tenant).to.equal('demo');
      expect(item.Stream).to.not.match(/-demo2-|-demo-closed-/);
      expect(operatorTypes).to.not.include(item.Type);
    }
    const demo2 = await feed('?limit=1000', 'demo2');
    expect(demo2.body.Items.length).to.be.greaterThan(0);
    for (const item of demo2.body.Items as Item[]) expect(item.Data.tenant).to.equal('demo2');
  });

  it('leaves out private fields: a member sign-up carries no password hash, one-time keys no key ids or hashes', async () => {
    const { items } = await readAll('limit=1000');
    const signUps = items.filter((i) => i.Type === 'MemberSignedUp');
    expect(signUps.length).to.be.greaterThan(0);
    for (const signUp of signUps) {
      expect(signUp.Data).to.not.have.property('passwordHash');
      expect(signUp.Data).to.include.keys('memberId', 'email', 'firstName');
    }
    const hashes = (await server.events()).filter((e) => e.type === 'MemberSignedUp').map((e) => e.data.passwordHash as string);
    const text = JSON.stringify(items);
    for (const hash of hashes) expect(text).to.not.include(hash);
    for (const item of items)
      for (const field of definitions.get(item.Type)!.private ?? []) expect(item.Data, item.Type).to.not.have.property(field);
  });

  it('filters by types (comma-separated), still complete and in order', async () => {
    const { items } = await readAll('types=MemberSignedUp,%20InterfaceTranslationsPublished&limit=3');
    const expected = (await logEventsOf('demo')).filter((e) => e.type === 'MemberSignedUp' || e.type === 'InterfaceTranslationsPublished');
    expect(items.map((i) => i.Type)).to.deep.equal(expected.map((e) => e.type));
    expect(items.length).to.be.greaterThan(3);
  });

  it('answers 400 problem+json for a bad after, an unknown type, a limit outside 1–1000 and a wait outside 0–60', async () => {
    const p = (text: string) => Buffer.from(text).toString('base64url');
    for (const query of [
      '?after=not-a-position!',
      `?after=${p('q:12')}`,
      `?after=${p('p:-1')}`,
      `?after=${p('p:012')}`,
      '?after=12',
      '?types=NoSuchEvent',
      '?types=MemberSignedUp,NoSuchEvent',
      '?types=ApiKeyIssued',
      '?limit=0',
      '?limit=1001',
      '?limit=ten',
      '?wait=61',
      '?wait=-1',
      '?wait=1.5',
    ])
      expectProblem(await feed(query), 400);
    expect((await feed('?limit=1000&wait=0')).status).to.equal(200);
  });

  it("gives positions opaque per house: nothing of the log's numbering shows, and another house's, an old or a future one is a 400", async () => {
    const { items } = await readAll('limit=1000');
    const demo = server.runtime.feed!.forTenant('demo');
    // Each item's Position reads back, with the house's key only, to its event's place in the log.
    const log = (await logEventsOf('demo')).map((e) => (e as unknown as { position: number }).position);
    expect(await Promise.all(items.map((i) => demo.position(i.Position, 'query.after')))).to.deep.equal(log);
    // Two neighbouring events of the house: their positions share nothing a client could count with.
    for (let i = 1; i < Math.min(items.length, 50); i++)
      expect(items[i].Position.slice(0, 3)).to.not.equal(items[i - 1].Position.slice(0, 3));
    const last = items.at(-1)!.Position;
    const refused = [
      // Another house's position: the demo house's last one, given to demo2's feed.
      (await feed(`?after=${last}`, 'demo2')).status,
      // The old form (the log's number in the clear) and one past the log's end.
      (await feed(`?after=${Buffer.from(`p:${log.at(-1)}`).toString('base64url')}`)).status,
      (await feed(`?after=${demo.token((await server.runtime.services.log.headPosition()) + 1000)}`)).status,
    ];
    expect(refused).to.deep.equal([400, 400, 400]);
    expect((await feed(`?after=${last}`)).status).to.equal(200);
  });

  it('waits: answers at once when an event of the tenant arrives, and Items: [] after `wait` seconds otherwise', async function () {
    this.timeout(20_000);
    const head = (await readAll('limit=1000')).next;

    let started = Date.now();
    const empty = await feed(`?after=${head}&wait=1`);
    const waited = Date.now() - started;
    expect(empty.body).to.deep.equal({ Items: [], Next: head, HasMore: false });
    expect(waited).to.be.within(900, 3000);

    // Another tenant's event does not end the wait.
    started = Date.now();
    const other = feed(`?after=${head}&wait=1`);
    setTimeout(() => void appendFor('demo2'), 100);
    expect((await other).body.Items).to.deep.equal([]);
    expect(Date.now() - started).to.be.at.least(900);

    started = Date.now();
    const waiting = feed(`?after=${head}&wait=10`);
    setTimeout(() => void appendFor('demo'), 200);
    const answered = await waiting;
    expect(Date.now() - started).to.be.below(2000);
    expect(answered.body.Items.map((i: Item) => i.Type)).to.deep.equal(['InterfaceTranslationsPublished']);
    expect(answered.body.Next).to.equal(answered.body.Items[0].Position);

    // Something newer exists already: answered at once, whatever the wait.
    started = Date.now();
    const ready = await feed(`?after=${head}&wait=30`);
    expect(ready.body.Items).to.have.length(1);
    expect(Date.now() - started).to.be.below(1000);
  });
});
