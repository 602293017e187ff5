/**
 * The client package's streams (clients/typescript/src/streams.ts) with a stand-in EventSource and fetch: events are
 * handed over by name, `reset` asks to re-read, the browser's own reconnects are left to it, and a ticket that
 * stopped working is replaced by a new one (then a re-read, as events may have been missed); `end` from the service
 * gets a new ticket at once when the old one expired, and closes the stream when its credential was revoked.
 */
import { expect } from 'chai';
import {
  createBidderClient,
  openAuctionStream,
  openMemberStream,
  ProblemError,
  StreamEndedError,
  type StreamState,
} from '../../clients/typescript/src/index.ts';

/** An EventSource that the spec drives: opens, events, errors. */
class FakeSource {
  static made: FakeSource[] = [];
  readyState = 0;
  onopen: ((event: Event) => unknown) | null = null;
  onerror: ((event: Event) => unknown) | null = null;
  closed = false;
  private readonly listeners = new Map<string, Array<(event: MessageEvent) => void>>();
  constructor(readonly url: string) {
    FakeSource.made.push(this);
  }
  addEventListener(type: string, listener: (event: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  emit(type: string, data: unknown, id: string) {
    for (const listener of this.listeners.get(type) ?? [])
      listener(new MessageEvent(type, { data: JSON.stringify(data), lastEventId: id }));
  }
  fail(readyState: 0 | 2) {
    this.readyState = readyState;
    this.onerror?.(new Event('error'));
  }
}

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the client package: streams through tickets', () => {
  let ticketAnswers: Array<{ status: number; body: unknown }>;
  let ticketRequests: Array<{ path: string; headers: Headers }>;
  const client = () =>
    createBidderClient({
      baseUrl: 'http://api.test',
      apiKey: 'key-1',
      token: 'token-1',
      fetch: async (input) => {
        const request = input as Request;
        ticketRequests.push({ path: ((await request.json()) as { Path: string }).Path, headers: request.headers });
        const answer = ticketAnswers.shift() ?? {
          status: 200,
          body: { Url: '/v1/auctions/10/stream?ticket=t', ExpiresAt: '2030-01-01T00:00:00Z' },
        };
        const type = answer.status === 200 ? 'application/json' : 'application/problem+json';
        return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'Content-Type': type } });
      },
    });
  beforeEach(() => {
    FakeSource.made = [];
    ticketAnswers = [];
    ticketRequests = [];
  });

  it('asks for a ticket with the credentials, opens its URL and hands each event to the handler of its name', async () => {
    const bids: Array<{ lot: number; id: string }> = [];
    const stream = openAuctionStream(client(), 10, {
      on: { bid: (data, event) => bids.push({ lot: data.LotId, id: event.id }) },
      EventSource: FakeSource,
    });
    await tick();
    expect(ticketRequests.map((r) => r.path)).to.deep.equal(['/v1/auctions/10/stream']);
    expect(ticketRequests[0].headers.get('Api-Key')).to.equal('key-1');
    expect(ticketRequests[0].headers.get('Authorization')).to.equal('Bearer token-1');
    const [source] = FakeSource.made;
    expect(source.url).to.equal('http://api.test/v1/auctions/10/stream?ticket=t');
    source.open();
    expect(stream.state).to.equal('open');
    source.emit('bid', { LotId: 2001, CurrentBid: 100 }, 'p1');
    source.emit('extended', { LotId: 2001 }, 'p2');
    expect(bids).to.deep.equal([{ lot: 2001, id: 'p1' }]);
    stream.close();
    expect(source.closed).to.equal(true);
  });

  it('asks to re-read after `reset`, leaves a dropped connection to the EventSource, and opens a new ticket when the old one is refused', async () => {
    const resyncs: string[] = [];
    const states: StreamState[] = [];
    const stream = openAuctionStream(client(), 10, {
      on: {},
      onResync: (why) => resyncs.push(why),
      onState: (state) => states.push(state),
      EventSource: FakeSource,
      retryMs: 1,
    });
    await tick();
    FakeSource.made[0].open();
    FakeSource.made[0].emit('reset', { Reason: 'too old' }, 'p9');
    expect(resyncs).to.deep.equal(['reset']);
    // CONNECTING: the browser reconnects by itself with Last-Event-ID; no new ticket.
    FakeSource.made[0].fail(0);
    await tick(20);
    expect(FakeSource.made).to.have.length(1);
    FakeSource.made[0].open();
    // CLOSED (a 401 to the reconnect): a new ticket, a new EventSource, and a re-read once it is open.
    FakeSource.made[0].fail(2);
    await tick(30);
    expect(ticketRequests).to.have.length(2);
    expect(FakeSource.made).to.have.length(2);
    FakeSource.made[1].open();
    expect(resyncs).to.deep.equal(['reset', 'reopened']);
    expect(states).to.deep.equal(['open', 'reconnecting', 'open', 'reconnecting', 'open']);
    stream.close();
  });

  it('gives up, closed, when the token can no longer have a ticket (401), telling why', async () => {
    ticketAnswers.push({
      status: 401,
      body: { type: 'urn:x', title: 'Unauthorized', status: 401, detail: 'expired', code: 'token-invalid' },
    });
    const errors: unknown[] = [];
    const stream = openAuctionStream(client(), 10, { on: {}, onError: (error) => errors.push(error), EventSource: FakeSource, retryMs: 1 });
    await tick(20);
    expect(stream.state).to.equal('closed');
    expect(FakeSource.made).to.have.length(0);
    expect(errors[0]).to.be.instanceOf(ProblemError);
    expect((errors[0] as ProblemError).code).to.equal('token-invalid');
  });

  it('opens a new ticket at once when the service ends the stream as its ticket expired (`end` credential-expired), then asks to re-read', async () => {
    const resyncs: string[] = [];
    const ends: string[] = [];
    const stream = openAuctionStream(client(), 10, {
      on: { end: (data) => ends.push(data.Code) },
      onResync: (why) => resyncs.push(why),
      EventSource: FakeSource,
      retryMs: 60_000,
    });
    await tick();
    FakeSource.made[0].open();
    FakeSource.made[0].emit('end', { Code: 'credential-expired', Reason: 'expired' }, 'p3');
    // The old EventSource is closed (no reconnect with the expired ticket), a new ticket asked for without waiting.
    expect(FakeSource.made[0].closed).to.equal(true);
    expect(stream.state).to.equal('reconnecting');
    await tick(20);
    expect(ticketRequests).to.have.length(2);
    expect(FakeSource.made).to.have.length(2);
    // The old connection's own error after the end changes nothing.
    FakeSource.made[0].fail(2);
    FakeSource.made[1].open();
    expect(stream.state).to.equal('open');
    expect(ends).to.deep.equal(['credential-expired']);
    expect(resyncs).to.deep.equal(['reopened']);
    stream.close();
  });

  it('closes the stream for good when the service ends it as its credential was revoked (`end` credential-revoked), telling why', async () => {
    const errors: unknown[] = [];
    const states: StreamState[] = [];
    const stream = openMemberStream(client(), {
      on: {},
      onError: (error) => errors.push(error),
      onState: (state) => states.push(state),
      EventSource: FakeSource,
      retryMs: 1,
    });
    await tick();
    FakeSource.made[0].open();
    FakeSource.made[0].emit('end', { Code: 'credential-revoked', Reason: 'revoked' }, 'p4');
    FakeSource.made[0].fail(2);
    await tick(20);
    expect(stream.state).to.equal('closed');
    expect(states).to.deep.equal(['open', 'closed']);
    expect(FakeSource.made[0].closed).to.equal(true);
    expect(FakeSource.made).to.have.length(1);
    expect(ticketRequests).to.have.length(1);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.be.instanceOf(StreamEndedError);
    expect((errors[0] as StreamEndedError).end.Code).to.equal('credential-revoked');
  });
});
