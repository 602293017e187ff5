// Stream tickets (API.md operation 63): a URL a browser's own EventSource opens with no header, for one path, the
// token's tenant and member, while the token is valid; never another path or tenant, never in a log.
import { expect } from 'chai';
import http from 'node:http';
import jwt from 'jsonwebtoken';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { openStream } from '../support/sse.ts';
import { TokenService } from '../../src/security/tokens.ts';
import { singleKey } from '../../src/security/signing-keys.ts';
import { sha256 } from '../../src/security/passwords.ts';

const TIMED_AUCTION = 10;
const JWT_SECRET = 'stream-ticket-spec-secret-0123456789abcdef';

describe('stream tickets', function () {
  this.timeout(60_000);
  const lines: string[] = [];
  let server: TestServer;
  let anonymous: string;
  let member: string;
  let lotId: number;
  let minimum: number;
  const ticket = (token: string, path: string, headers: Record<string, string> = {}) =>
    server.request('POST', '/v1/stream-tickets', { token, body: { Path: path }, headers });
  /** The Url read as a browser resolves it against the API it called (without PUBLIC_URL it is a path). */
  const urlOf = (url: string) => new URL(url, server.base);
  /** The Url's path and query. */
  const relative = (url: string) => {
    const u = urlOf(url);
    return u.pathname + u.search;
  };

  before(async () => {
    server = await startTestServer({ logLines: lines, env: { JWT_SECRET } });
    anonymous = await server.anonymousToken();
    member = await server.memberToken();
    expect((await server.request('POST', `/v1/me/registrations/${TIMED_AUCTION}`, { token: member })).status).to.equal(200);
    await server.runtime.services.projector.catchUp();
    const lots = (await server.request('GET', `/v1/lots?AuctionId=${TIMED_AUCTION}&pageSize=5`, { token: anonymous })).body.Items;
    lotId = lots[0].Id;
    minimum = lots[0].MinimumNextBid;
  });
  after(async () => server?.close());

  it("opens the auction stream with no header, from an anonymous token's ticket, and resumes on the same URL with Last-Event-ID", async () => {
    const made = await ticket(anonymous, `/v1/auctions/${TIMED_AUCTION}/stream`);
    expect(made.status, made.text).to.equal(200);
    expect(made.body.Url).to.match(new RegExp(`^/v1/auctions/${TIMED_AUCTION}/stream\\?ticket=[A-Za-z0-9._-]+$`));
    const tokenExpiry = Date.parse(
      (await server.request('GET', '/v1/tokens/current', { token: anonymous })).body.ExpiresAt ?? made.body.ExpiresAt,
    );
    expect(Date.parse(made.body.ExpiresAt)).to.be.at.most(tokenExpiry).and.above(Date.now());
    const url = relative(made.body.Url);

    const stream = await openStream(server.base, url, {});
    expect(stream.status).to.equal(200);
    const placed = await server.request('POST', '/v1/me/bids', { token: member, body: { LotId: lotId, MaxAmount: minimum } });
    expect(placed.status, placed.text).to.equal(200);
    const [seen] = await stream.events(1);
    expect(seen.event).to.equal('bid');
    expect(JSON.parse(seen.data!)).to.include({ LotId: lotId, CurrentBid: placed.body.CurrentBid });
    stream.close();

    // Missed while away: the browser reconnects with the same URL and Last-Event-ID.
    const next = await server.request('POST', '/v1/me/bids', {
      token: member,
      body: { LotId: lotId, MaxAmount: placed.body.MaxAmount + 10_000 },
    });
    expect(next.status, next.text).to.equal(200);
    const other = (await server.request('GET', `/v1/lots?AuctionId=${TIMED_AUCTION}&pageSize=5`, { token: anonymous })).body.Items[1];
    const raised = await server.request('POST', '/v1/me/bids', {
      token: member,
      body: { LotId: other.Id, MaxAmount: other.MinimumNextBid },
    });
    expect(raised.status, raised.text).to.equal(200);
    const again = await openStream(server.base, url, { 'Last-Event-ID': seen.id! });
    try {
      expect(again.status).to.equal(200);
      const [missed] = await again.events(1);
      expect(JSON.parse(missed.data!)).to.include({ LotId: other.Id });
    } finally {
      again.close();
    }
  });

  it('serves no other path: another auction, the member stream, another operation (401 ticket-invalid or no credential)', async () => {
    const made = await ticket(member, `/v1/auctions/${TIMED_AUCTION}/stream`);
    const query = urlOf(made.body.Url).search;
    const other = (await server.rawGet(`/v1/auctions/1/stream${query}`, { apiKey: null })).body;
    expect(JSON.parse(other)).to.include({ status: 401, code: 'ticket-invalid' });
    const mine = await server.rawGet(`/v1/me/stream${query}`, { apiKey: null });
    expect(mine.status).to.equal(401);
    expect(JSON.parse(mine.body).code).to.equal('ticket-invalid');
    const lots = await server.rawGet(`/v1/lots${query}`, { apiKey: null });
    expect(lots.status).to.equal(401);
    // A bearer token is not a ticket, and a ticket is not a bearer token.
    const ticketValue = new URLSearchParams(query).get('ticket')!;
    expect((await server.rawGet(`/v1/auctions/${TIMED_AUCTION}/stream?ticket=${anonymous}`, { apiKey: null })).status).to.equal(401);
    expectProblem(await server.request('GET', '/v1/lots', { token: ticketValue }), 401);
  });

  it("is bound to the token's tenant: another house's auction is a 404, a tampered ticket a 401", async () => {
    const demo2 = await server.anonymousToken('demo2');
    const problem = expectProblem(await ticket(demo2, `/v1/auctions/${TIMED_AUCTION}/stream`), 404);
    expect(problem.code).to.equal('not-found');
    const made = await ticket(anonymous, `/v1/auctions/${TIMED_AUCTION}/stream`);
    const value = urlOf(made.body.Url).searchParams.get('ticket')!;
    const [header, payload, signature] = value.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, tenant: 'demo2' })).toString('base64url')}.${signature}`;
    const answer = await server.rawGet(`/v1/auctions/${TIMED_AUCTION}/stream?ticket=${forged}`, { apiKey: null });
    expect(answer.status).to.equal(401);
    expect(JSON.parse(answer.body).code).to.equal('ticket-invalid');
  });

  it('is refused for an expired token, and stops opening its stream once its token has expired', async () => {
    const expired = new TokenService(singleKey(Buffer.from(JWT_SECRET)), { anonymous: -10, application: -10, member: -10 }).issue(
      'anonymous',
      'demo',
      'anonymous',
    );
    expectProblem(await ticket(expired.Token, `/v1/auctions/${TIMED_AUCTION}/stream`), 401);
    // A ticket made while its token was valid, which has expired since (exp in the past, signed by the service).
    const claims = jwt.decode(anonymous) as { jti: string; iat: number };
    const old = server.runtime.services.tokens.tickets.issue(
      { sub: 'anonymous', tenant: 'demo', kind: 'anonymous', jti: claims.jti, iat: claims.iat, exp: Math.floor(Date.now() / 1000) - 5 },
      sha256(server.credentials.apiKey),
      `/v1/auctions/${TIMED_AUCTION}/stream`,
    );
    const answer = await server.rawGet(`/v1/auctions/${TIMED_AUCTION}/stream?ticket=${old.ticket}`, { apiKey: null });
    expect(answer.status).to.equal(401);
    expect(answer.headers['content-type']).to.match(/^application\/problem\+json/);
  });

  it('makes a member stream ticket from a member token only (401 member-token-required), and refuses it once the member is gone', async () => {
    const refused = expectProblem(await ticket(anonymous, '/v1/me/stream'), 401);
    expect(refused.code).to.equal('member-token-required');
    const made = await ticket(member, '/v1/me/stream');
    expect(made.status, made.text).to.equal(200);
    expect(urlOf(made.body.Url).pathname).to.equal('/v1/me/stream');
    // A member that does not exist (a token for a member id never created) gets no ticket, and no stream.
    const ghost = server.issueMemberToken('demo', 999_999);
    expectProblem(await ticket(ghost, '/v1/me/stream'), 401);
    const ghostTicket = server.runtime.services.tokens.tickets.issue(
      jwt.decode(ghost) as never,
      sha256(server.credentials.apiKey),
      '/v1/me/stream',
    );
    const refusedStream = await server.rawGet(`/v1/me/stream?ticket=${ghostTicket.ticket}`, { apiKey: null });
    expect(refusedStream.status).to.equal(401);
    expect(refusedStream.headers['content-type']).to.match(/^application\/problem\+json/);
  });

  it('answers bad input with a 4xx problem, never a 500', async () => {
    const cases: Array<[unknown, number, string?]> = [
      [undefined, 400],
      [{}, 400],
      [{ Path: 42 }, 400],
      [{ Path: '/v1/lots' }, 400, 'stream-path-invalid'],
      [{ Path: '/v1/auctions/abc/stream' }, 400, 'stream-path-invalid'],
      [{ Path: '/v1/auctions/99999999999/stream' }, 400, 'stream-path-invalid'],
      [{ Path: '/v1/auctions/0/stream' }, 400, 'stream-path-invalid'],
      [{ Path: 'https://evil.example/v1/me/stream' }, 400, 'stream-path-invalid'],
      [{ Path: '/v1/auctions/123456/stream' }, 404],
    ];
    for (const [body, status, code] of cases) {
      const answer = await server.request('POST', '/v1/stream-tickets', { token: anonymous, body });
      const problem = expectProblem(answer, status);
      if (code) expect(problem.code, JSON.stringify(body)).to.equal(code);
    }
    const text = await server.request('POST', '/v1/stream-tickets', {
      token: anonymous,
      rawBody: 'Path=/v1/me/stream',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(text, 415);
    expectProblem(await server.request('POST', '/v1/stream-tickets', { token: null, body: { Path: '/v1/me/stream' } }), 401);
    expectProblem(await server.request('GET', '/v1/auctions/abc/stream?ticket=x', { apiKey: null }), 401);
  });

  it('takes the ticket alone when headers come with it: another Api-Key or token is not looked at', async () => {
    const made = await ticket(anonymous, `/v1/auctions/${TIMED_AUCTION}/stream`);
    const stream = await openStream(server.base, relative(made.body.Url), {
      'Api-Key': 'not-a-key',
      Authorization: 'Bearer not-a-token-at-all',
    });
    try {
      expect(stream.status).to.equal(200);
    } finally {
      stream.close();
    }
  });

  it('lets a page of another origin open a ticket URL: the answer carries Access-Control-Allow-Origin', async () => {
    const made = await ticket(anonymous, `/v1/auctions/${TIMED_AUCTION}/stream`);
    const stream = await openStream(server.base, relative(made.body.Url), { Origin: 'https://shop.example.com' });
    try {
      expect(stream.status).to.equal(200);
      expect(stream.headers['access-control-allow-origin']).to.be.oneOf(['*', 'https://shop.example.com']);
    } finally {
      stream.close();
    }
    const preflight = await server.request('OPTIONS', '/v1/stream-tickets', {
      apiKey: null,
      headers: {
        Origin: 'https://shop.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.be.oneOf(['*', 'https://shop.example.com']);
  });

  it('never writes a ticket to the log', async () => {
    const made = await ticket(member, '/v1/me/stream');
    const value = urlOf(made.body.Url).searchParams.get('ticket')!;
    await server.rawGet(`/v1/auctions/1/stream?ticket=${value}`, { apiKey: null });
    const stream = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream?ticket=${value}`, {});
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const all = lines.join('\n');
    expect(all).to.include('/v1/auctions/1/stream');
    expect(all).to.not.include(value);
    expect(all).to.not.include(value.split('.')[2]);
    expect(all).to.not.include('ticket=');
  });

  describe("the ticket's URL: PUBLIC_URL, else a path, never the request's Host", function () {
    this.timeout(180_000);
    /** POST /v1/stream-tickets over node:http, which sends the Host header it is given (fetch would not). */
    const postWithHost = (base: string, token: string, apiKey: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: { Url: string } }>((resolve, reject) => {
        const request = http.request(
          `${base}/v1/stream-tickets`,
          {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Api-Key': apiKey, Authorization: `Bearer ${token}`, ...headers },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify({ Path: '/v1/me/stream' }));
      });
    const hostile: Array<Record<string, string>> = [
      { Host: 'evil.example/x?' },
      { Host: 'evil.example' },
      { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' },
    ];

    it("answers a path from the API's root when PUBLIC_URL is unset, whatever Host and X-Forwarded-Host say", async () => {
      for (const headers of hostile) {
        const made = await postWithHost(server.base, member, server.credentials.apiKey, headers);
        expect(made.status, JSON.stringify(made.body)).to.equal(200);
        expect(made.body.Url, JSON.stringify(headers)).to.match(/^\/v1\/me\/stream\?ticket=[A-Za-z0-9._-]+$/);
        expect(made.body.Url).to.not.include('evil');
      }
    });

    it('answers an absolute URL under PUBLIC_URL (its path kept), whatever Host says, behind a trusted proxy too', async () => {
      const behind = await startTestServer({ env: { JWT_SECRET, PUBLIC_URL: 'https://api.example.com/bidder/', TRUST_PROXY: 'true' } });
      try {
        const token = await behind.memberToken();
        for (const headers of hostile) {
          const made = await postWithHost(behind.base, token, behind.credentials.apiKey, headers);
          expect(made.status, JSON.stringify(made.body)).to.equal(200);
          expect(made.body.Url, JSON.stringify(headers)).to.match(
            /^https:\/\/api\.example\.com\/bidder\/v1\/me\/stream\?ticket=[A-Za-z0-9._-]+$/,
          );
        }
        // The ticket in it opens the stream where the service really is.
        const made = await postWithHost(behind.base, token, behind.credentials.apiKey, {});
        const stream = await openStream(behind.base, `/v1/me/stream${new URL(made.body.Url).search}`, {});
        expect(stream.status).to.equal(200);
        stream.close();
      } finally {
        await behind.close();
      }
    });

    it('refuses at start, in one line, a PUBLIC_URL that is not an absolute http(s) URL without query or fragment', () => {
      expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).http.publicUrl).to.equal('https://api.example.com');
      expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:3000/api' }).http.publicUrl).to.equal('http://127.0.0.1:3000/api');
      expect(loadConfig({}).http.publicUrl).to.equal(null);
      for (const bad of [
        'api.example.com',
        '/v1',
        'ftp://api.example.com',
        'https://api.example.com/?',
        'https://api.example.com/?a=1',
        'https://api.example.com/#x',
        'https://user:pw@api.example.com',
        'javascript:alert(1)',
      ])
        expect(() => loadConfig({ PUBLIC_URL: bad }), bad)
          .to.throw(ConfigError)
          .with.property('message')
          .that.matches(/^PUBLIC_URL must be/)
          .and.does.not.include('\n');
    });
  });
});
