// Streams end with the credential they were opened with (DESIGN.md "Secrets have a home and an end"): at the
// expiry of the ticket or token, whatever comes meanwhile (events, heartbeats), and within a second of its
// revocation (a password reset, the member removed, the Api-Key withdrawn from the house, the house's public
// access closed), with a last `end` event {Code, Reason}; streams of other credentials go on.
import { expect } from 'chai';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { importAnyRecord } from '../../app/features/intake.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { sha256 } from '../../src/security/passwords.ts';
import { singleKey } from '../../src/security/signing-keys.ts';
import { TokenService } from '../../src/security/tokens.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { startTestServer, TEST_PASSWORD, type TestServer } from '../support/server.ts';
import { openStream, type OpenStream } from '../support/sse.ts';

const TIMED_AUCTION = 10;
const QUIET_AUCTION = 1;
const JWT_SECRET = 'stream-ends-spec-secret-0123456789abcdef';
const NEW_PASSWORD = 'a brand new passphrase for streams';

/** Milliseconds from a revocation to each stream's end, printed with STREAM_END_TIMINGS=1. */
const timings: Array<{ what: string; ms: number }> = [];

describe('streams end with their credential', function () {
  this.timeout(60_000);
  let server: TestServer;
  let anonymous: string;
  const intake = async (record: Record<string, unknown>) => {
    await importAnyRecord(server.runtime.services.log, record);
    await server.runtime.services.projector.catchUp();
  };
  const headersOf = (token: string, apiKey = server.credentials.apiKey) => ({ 'Api-Key': apiKey, Authorization: `Bearer ${token}` });
  const relative = (url: string) => {
    const parsed = new URL(url, 'http://ticket.invalid'); // the ticket's Url is a path unless PUBLIC_URL is set
    return parsed.pathname + parsed.search;
  };
  const ticketUrl = async (token: string, streamPath: string, apiKey?: string) => {
    const made = await server.request('POST', '/v1/stream-tickets', { token, apiKey, body: { Path: streamPath } });
    expect(made.status, made.text).to.equal(200);
    return relative(made.body.Url);
  };
  const lotsOf = async (auction: number) =>
    (await server.request('GET', `/v1/lots?AuctionId=${auction}&pageSize=20`, { token: anonymous })).body.Items as Array<{
      Id: number;
      MinimumNextBid: number;
    }>;
  /** The stream's events (not comments) as `{event, data}`. */
  const eventsOf = (stream: OpenStream) =>
    stream.messages.filter((m) => m.event).map((m) => ({ event: m.event!, data: JSON.parse(m.data!) as Record<string, unknown> }));
  /** Resolves with the time the server ended the stream, or rejects after `ms`. */
  const endOf = (stream: OpenStream, ms: number) =>
    Promise.race([
      stream.ended.then(() => Date.now()),
      new Promise<number>((_, fail) => setTimeout(() => fail(new Error(`the stream did not end within ${ms} ms`)), ms)),
    ]);
  /** Whether the stream is still open `ms` from now. */
  const stillOpenAfter = async (stream: OpenStream, ms: number) =>
    Promise.race([stream.ended.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms))]);
  const expectEnd = (stream: OpenStream, code: string) => {
    const last = eventsOf(stream).at(-1);
    expect(last?.event, JSON.stringify(stream.messages.slice(-3))).to.equal('end');
    expect(last?.data.Code).to.equal(code);
    expect(last?.data.Reason).to.be.a('string').and.not.equal('');
    expect(stream.messages.at(-1)!.id, 'the end carries the position reached').to.be.a('string');
  };

  /** A member of demo, signed in (the demo member's password hash, to spare slow hashing). */
  async function signedInMember(memberId: number, email: string): Promise<string> {
    const passwordHash = (await memberAccounts(server.runtime.services.documents.forTenant('demo')).findById('1'))!.PasswordHash;
    await intake({
      kind: 'member',
      tenant: 'demo',
      memberId,
      email,
      passwordHash,
      firstName: 'Stream',
      lastName: 'Ender',
      language: 'en',
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    const session = await server.request('POST', '/v1/sessions', { token: anonymous, body: { Email: email, Password: TEST_PASSWORD } });
    expect(session.status, session.text).to.equal(200);
    const token = session.body.Token as string;
    expect((await server.request('POST', `/v1/me/registrations/${TIMED_AUCTION}`, { token })).status).to.equal(200);
    return token;
  }

  /** A password reset through the API (the key read from the mail); resolves when its confirmation answered. */
  async function resetPassword(email: string): Promise<{ answered: number }> {
    expect((await server.request('POST', '/v1/password-resets', { token: anonymous, body: { Email: email } })).status).to.equal(200);
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle();
    const mail = (await readOutbox(path.join(server.dataDir, 'outbox'))).filter((m) => m.To === email).at(-1)!;
    const key = /^([A-Za-z0-9_-]{32})$/m.exec(mail.Body)![1];
    const done = await server.request('POST', '/v1/password-resets/confirmation', {
      token: anonymous,
      body: { Email: email, Key: key, Password: NEW_PASSWORD },
    });
    expect(done.status, done.text).to.equal(200);
    return { answered: Date.now() };
  }

  before(async () => {
    server = await startTestServer({ env: { JWT_SECRET } });
    anonymous = await server.anonymousToken();
  });
  after(async () => {
    if (process.env.STREAM_END_TIMINGS) for (const t of timings) console.log(`      ${t.what}: ${t.ms} ms`);
    await server?.close();
  });

  it("ends a member's streams (with a ticket, with headers) within a second of a password reset; no `leading` after it; another member's goes on", async () => {
    const email = 'stream.ends.reset@example.com';
    const token = await signedInMember(701, email);
    const url = await ticketUrl(token, '/v1/me/stream');
    const byTicket = await openStream(server.base, url, {});
    const byHeaders = await openStream(server.base, '/v1/me/stream', headersOf(token));
    const other = await openStream(server.base, '/v1/me/stream', headersOf(await server.memberToken()));
    try {
      expect([byTicket.status, byHeaders.status, other.status]).to.deep.equal([200, 200, 200]);
      const [lot] = await lotsOf(TIMED_AUCTION);
      const placed = await server.request('POST', '/v1/me/bids', {
        token,
        body: { LotId: lot.Id, MaxAmount: lot.MinimumNextBid + 50_000 },
      });
      expect(placed.status, placed.text).to.equal(200);
      for (const stream of [byTicket, byHeaders]) expect((await stream.events(1))[0].event).to.equal('leading');

      const ends = [endOf(byTicket, 5000), endOf(byHeaders, 5000)];
      const { answered } = await resetPassword(email);
      const [ticketEnd, headersEnd] = await Promise.all(ends);
      // From the reset's event in the log (the sessions ended), which comes before the confirmation's answer.
      const reset = (await server.runtime.services.log.readStream('member-demo-701'))
        .filter((e) => e.type === 'MemberPasswordChanged')
        .at(-1)!;
      for (const [what, at] of [
        ['member stream (ticket) after a password reset', ticketEnd],
        ['member stream (headers) after a password reset', headersEnd],
      ] as const) {
        expect(at - answered, what).to.be.below(1000);
        timings.push({ what, ms: at - Date.parse(reset.created) });
      }
      for (const stream of [byTicket, byHeaders]) {
        expectEnd(stream, 'credential-revoked');
        expect(eventsOf(stream).map((e) => e.event)).to.deep.equal(['leading', 'end']);
      }
      expect(await stillOpenAfter(other, 300), "the other member's stream").to.equal(true);
      expect((await server.rawGet(url, { apiKey: null })).status, 'the ticket opens nothing any more').to.equal(401);
    } finally {
      for (const stream of [byTicket, byHeaders, other]) stream.close();
    }
  });

  it("ends a member's stream within a second of the member's removal", async () => {
    const token = await signedInMember(702, 'stream.ends.removed@example.com');
    const stream = await openStream(server.base, '/v1/me/stream', headersOf(token));
    try {
      expect(stream.status).to.equal(200);
      const ended = endOf(stream, 5000);
      const started = Date.now();
      await importAnyRecord(server.runtime.services.log, {
        kind: 'memberRemoved',
        tenant: 'demo',
        memberId: 702,
        at: new Date().toISOString(),
      });
      const at = await ended;
      expect(at - started).to.be.below(1000);
      timings.push({ what: 'member stream after the member was removed', ms: at - started });
      expectEnd(stream, 'credential-revoked');
    } finally {
      stream.close();
    }
  });

  it("ends a stream at its ticket's expiry, heartbeats and all; a stream opened with headers at its token's, events and all", async function () {
    this.timeout(40_000);
    // A ticket made by the service that expires in 15 to 16 seconds: past the first heartbeat (every 14 s).
    const claims = jwt.decode(anonymous) as { jti: string; iat: number };
    const expiresAt = Math.floor(Date.now() / 1000) + 16;
    const shortTicket = server.runtime.services.tokens.tickets.issue(
      { sub: 'anonymous', tenant: 'demo', kind: 'anonymous', jti: claims.jti, iat: claims.iat, exp: expiresAt },
      sha256(server.credentials.apiKey),
      `/v1/auctions/${QUIET_AUCTION}/stream`,
    );
    const quiet = await openStream(server.base, `/v1/auctions/${QUIET_AUCTION}/stream?ticket=${shortTicket.ticket}`, {});
    // A token of the service that lives 2 seconds, used with headers on a stream that carries bids meanwhile.
    const short = new TokenService(singleKey(Buffer.from(JWT_SECRET)), { anonymous: 2, application: 2, member: 2 }).issue(
      'anonymous',
      'demo',
      'anonymous',
    );
    const tokenExpiry = Date.parse(short.ExpiresAt);
    const busy = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, headersOf(short.Token));
    try {
      expect([quiet.status, busy.status]).to.deep.equal([200, 200]);
      const bidder = await server.memberToken();
      expect((await server.request('POST', `/v1/me/registrations/${TIMED_AUCTION}`, { token: bidder })).status).to.equal(200);
      const lots = await lotsOf(TIMED_AUCTION);
      const busyEnd = endOf(busy, 5000);
      for (let i = 0; Date.now() < tokenExpiry - 300; i++) {
        const lot = lots[5 + (i % 10)];
        const placed = await server.request('POST', '/v1/me/bids', {
          token: bidder,
          body: { LotId: lot.Id, MaxAmount: lot.MinimumNextBid + 100 * i },
        });
        expect(placed.status, placed.text).to.be.oneOf([200, 400]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const busyAt = await busyEnd;
      expect(eventsOf(busy).filter((e) => e.event === 'bid').length, 'bids carried before the end').to.be.above(0);
      expectEnd(busy, 'credential-expired');
      expect(busyAt - tokenExpiry).to.be.within(0, 1000);
      timings.push({ what: "auction stream (headers) after its token's expiry", ms: busyAt - tokenExpiry });

      const quietAt = await endOf(quiet, 20_000);
      expect(
        quiet.messages.some((m) => m.comment === 'heartbeat'),
        'a heartbeat came before the end',
      ).to.equal(true);
      expectEnd(quiet, 'credential-expired');
      expect(quietAt - expiresAt * 1000).to.be.within(0, 1000);
      timings.push({ what: "auction stream (ticket) after its ticket's expiry", ms: quietAt - expiresAt * 1000 });
    } finally {
      quiet.close();
      busy.close();
    }
  });

  it('ends the auction streams of an Api-Key within a second of its withdrawal from the house; those of other keys go on', async () => {
    const key = 'stream-ends-api-key-0123456789';
    await intake({ kind: 'apiKey', key, name: 'stream ends', tenants: ['demo', 'demo2'] });
    const byHeaders = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, headersOf(anonymous, key));
    const url = await ticketUrl(anonymous, `/v1/auctions/${TIMED_AUCTION}/stream`, key);
    const byTicket = await openStream(server.base, url, {});
    const otherKey = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, headersOf(anonymous));
    try {
      expect([byHeaders.status, byTicket.status, otherKey.status]).to.deep.equal([200, 200, 200]);
      const ends = [endOf(byHeaders, 5000), endOf(byTicket, 5000)];
      const started = Date.now();
      // The key issued again for demo2 only: it no longer acts for demo.
      await importAnyRecord(server.runtime.services.log, { kind: 'apiKey', key, name: 'stream ends', tenants: ['demo2'] });
      const [headersAt, ticketAt] = await Promise.all(ends);
      for (const [what, at] of [
        ['auction stream (headers) after its Api-Key lost the house', headersAt],
        ['auction stream (ticket) after its Api-Key lost the house', ticketAt],
      ] as const) {
        expect(at - started, what).to.be.below(1000);
        timings.push({ what, ms: at - started });
      }
      expectEnd(byHeaders, 'credential-revoked');
      expectEnd(byTicket, 'credential-revoked');
      expect(await stillOpenAfter(otherKey, 300), "another key's stream").to.equal(true);
      expect((await server.rawGet(url, { apiKey: null })).status, 'the ticket opens nothing any more').to.equal(401);
    } finally {
      for (const stream of [byHeaders, byTicket, otherKey]) stream.close();
    }
  });

  it("ends a house's anonymous streams within a second of its public access closing; a member's stream of the house goes on", async () => {
    const house = (await server.events()).filter((e) => e.type === 'TenantConfigured' && e.data.tenant === 'demo2').at(-1)!.data;
    const anonymous2 = await server.anonymousToken('demo2');
    const member2 = await server.memberToken('demo2');
    const byAnonymous = await openStream(server.base, `/v1/auctions/${QUIET_AUCTION}/stream`, headersOf(anonymous2));
    const byMember = await openStream(server.base, `/v1/auctions/${QUIET_AUCTION}/stream`, headersOf(member2));
    try {
      expect([byAnonymous.status, byMember.status]).to.deep.equal([200, 200]);
      const ended = endOf(byAnonymous, 5000);
      const started = Date.now();
      await importAnyRecord(server.runtime.services.log, { kind: 'tenant', ...house, publicAccess: false });
      const at = await ended;
      expect(at - started).to.be.below(1000);
      timings.push({ what: 'anonymous auction stream after its house closed public access', ms: at - started });
      expectEnd(byAnonymous, 'credential-revoked');
      expect(await stillOpenAfter(byMember, 300), "the member's stream").to.equal(true);
    } finally {
      byAnonymous.close();
      byMember.close();
      await intake({ kind: 'tenant', ...house, publicAccess: true });
    }
  });
});
