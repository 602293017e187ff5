// BACKOFFICE.md "The event feed", the stream: GET /backoffice/v1/events/stream (Server-Sent Events).
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import { MAX_FEED_READERS } from '../../src/events/feed.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { openStream } from '../support/sse.ts';

describe('the back office event stream', () => {
  let server: TestServer;
  let counter = 0;
  const auth = (tenant: 'demo' | 'demo2' = 'demo') => ({ Authorization: `Bearer ${server.credentials.backOfficeKeys[tenant]}` });
  const appendFor = (tenant: string) =>
    importRecord(server.runtime.services.log, {
      kind: 'translations',
      tenant,
      language: 'en',
      entries: { 'spec.stream': String(++counter) },
    });
  const headPosition = async () => {
    const page = await server.request('GET', '/backoffice/v1/events?limit=1000', { apiKey: null, headers: auth() });
    let next = page.body.Next as string;
    for (let more = page.body.HasMore; more;) {
      const again = await server.request('GET', `/backoffice/v1/events?limit=1000&after=${next}`, { apiKey: null, headers: auth() });
      next = again.body.Next;
      more = again.body.HasMore;
    }
    return next;
  };

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it("sends the events that come, in order, as id: Position, event: Type and data: the feed item, only of the key's tenant", async () => {
    const after = await headPosition();
    const stream = await openStream(server.base, `/backoffice/v1/events/stream?after=${after}`, auth());
    try {
      expect(stream.status).to.equal(200);
      expect(stream.headers['content-type']).to.match(/^text\/event-stream/);
      expect(stream.headers['cache-control']).to.equal('no-store');
      for (let i = 0; i < 3; i++) {
        await appendFor('demo2');
        await appendFor('demo');
      }
      const events = await stream.events(3);
      const items = events.map((e) => JSON.parse(e.data!));
      expect(events.map((e) => e.event)).to.deep.equal([
        'InterfaceTranslationsPublished',
        'InterfaceTranslationsPublished',
        'InterfaceTranslationsPublished',
      ]);
      expect(events.map((e) => e.id)).to.deep.equal(items.map((i) => i.Position));
      expect(items.map((i) => i.Stream)).to.deep.equal(items.map(() => 'translations-demo-en'));
      expect(items.map((i) => i.Revision)).to.deep.equal([...items.map((i) => i.Revision)].sort((a, b) => a - b));
      // The same items as the paged feed gives.
      const page = await server.request('GET', `/backoffice/v1/events?after=${after}`, { apiKey: null, headers: auth() });
      expect(page.body.Items).to.deep.equal(items);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(stream.messages.filter((m) => m.event).length).to.equal(3);
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID: nothing missed, nothing twice (the header wins over after)', async () => {
    const start = await headPosition();
    const first = await openStream(server.base, `/backoffice/v1/events/stream?after=${start}`, auth());
    await appendFor('demo');
    await appendFor('demo');
    const seen = await first.events(2);
    first.close();
    // Appended while the client is away.
    await appendFor('demo');
    await appendFor('demo');
    const second = await openStream(server.base, `/backoffice/v1/events/stream?after=${start}`, {
      ...auth(),
      'Last-Event-ID': seen[1].id!,
    });
    try {
      const resumed = await second.events(2);
      const all = [...seen, ...resumed].map((m) => JSON.parse(m.data!).Revision as number);
      expect(all).to.deep.equal([all[0], all[0] + 1, all[0] + 2, all[0] + 3]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(second.messages.filter((m) => m.event).length).to.equal(2);
    } finally {
      second.close();
    }
  });

  it('filters by types and opens with a comment line', async () => {
    const after = await headPosition();
    const stream = await openStream(server.base, `/backoffice/v1/events/stream?after=${after}&types=MemberSignedUp`, auth());
    try {
      await appendFor('demo');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stream.messages.filter((m) => m.event)).to.have.length(0);
      expect(stream.messages[0].comment).to.be.a('string');
    } finally {
      stream.close();
    }
  });

  it('refuses a bad Last-Event-ID, a bad after, an unknown type and a bidder credential, as problem+json', async () => {
    const headers = auth();
    expectProblem(
      await server.request('GET', '/backoffice/v1/events/stream', { apiKey: null, headers: { ...headers, 'Last-Event-ID': 'nope' } }),
      400,
    );
    expectProblem(await server.request('GET', '/backoffice/v1/events/stream?after=zzz', { apiKey: null, headers }), 400);
    expectProblem(await server.request('GET', '/backoffice/v1/events/stream?types=NoSuchEvent', { apiKey: null, headers }), 400);
    expectProblem(await server.request('GET', '/backoffice/v1/events/stream', { token: await server.anonymousToken() }), 401);
  });

  it("answers 429 once a house holds half the process's streams and waits, 503 when the process holds its most, and takes streams again after", async () => {
    const feed = server.runtime.feed!;
    const held: Array<() => void> = [];
    try {
      // The house's share: half the process's readers.
      while (feed.readers < MAX_FEED_READERS / 2) held.push(feed.forTenant('demo').reading());
      const share = await server.request('GET', '/backoffice/v1/events/stream', { apiKey: null, headers: auth() });
      expectProblem(share, 429);
      expect(share.headers.get('retry-after')).to.equal('10');
      expectProblem(await server.request('GET', '/backoffice/v1/events?wait=5', { apiKey: null, headers: auth() }), 429);
      // Another house still gets in, up to the process's bound.
      const other = await openStream(server.base, '/backoffice/v1/events/stream?types=MemberSignedUp', auth('demo2'));
      expect(other.status).to.equal(200);
      other.close();
      for (let i = 0; i < 100 && feed.readers > MAX_FEED_READERS / 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      while (feed.readers < MAX_FEED_READERS) held.push(feed.forTenant('demo2').reading());
      expectProblem(await server.request('GET', '/backoffice/v1/events/stream', { apiKey: null, headers: auth('demo2') }), 503);
      expectProblem(await server.request('GET', '/backoffice/v1/events?wait=5', { apiKey: null, headers: auth() }), 503);
    } finally {
      for (const release of held) release();
    }
    const stream = await openStream(server.base, '/backoffice/v1/events/stream?types=MemberSignedUp', auth());
    expect(stream.status).to.equal(200);
    stream.close();
  });

  it('counts open streams among the feed readers and lets go of them when the client leaves', async () => {
    const feed = server.runtime.feed!;
    const before = feed.readers;
    const stream = await openStream(server.base, '/backoffice/v1/events/stream?types=MemberSignedUp', auth());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(feed.readers).to.equal(before + 1);
    stream.close();
    const deadline = Date.now() + 2000;
    while (feed.readers !== before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(feed.readers).to.equal(before);
  });
});
