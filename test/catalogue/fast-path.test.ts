/**
 * Catalogue answers already in the response cache are sent before the router (src/http/catalogue-fast-path.ts)
 * to callers whose credentials were checked: the same answer the operation's route sends from the same cache
 * (status, headers, bytes), for GET and HEAD, with 304s, compression and CORS. The shell is built with
 * buildApp over a probe operation that counts its runs, stub engines and a stub directory.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { z } from 'zod';
import { buildApp } from '../../src/http/app.ts';
import { listen } from '../../src/http/server.ts';
import { defineOperation, type Operation } from '../../src/http/operation.ts';
import type { AccessDirectory } from '../../src/http/access-directory.ts';
import type { Services } from '../../src/services.ts';
import { TokenService } from '../../src/security/tokens.ts';
import { singleKey } from '../../src/security/signing-keys.ts';
import { sha256 } from '../../src/security/passwords.ts';
import { createLogger } from '../../src/logger.ts';
import { ScopedVersions } from '../../src/http/cache-versions.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';

const API_KEY = 'fast-path-api-key';
const ORIGIN = 'https://house.example';

const tenantDoc = (id: string, publicAccess = true) => ({
  _id: id,
  Tenant: id,
  Name: id,
  Languages: ['en', 'sv'],
  DefaultLanguage: 'en',
  Currency: 'EUR',
  PageSize: 20,
  PublicAccess: publicAccess,
  ContactEmail: `${id}@example.com`,
  Country: null,
  VatRate: null,
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Headers that differ between any two answers by design (the request's own id, the date, the connection). */
const PER_REQUEST = ['x-request-id', 'date', 'connection', 'keep-alive'];
const stable = (headers: http.IncomingHttpHeaders) =>
  Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => !PER_REQUEST.includes(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );

describe('catalogue answers sent from the response cache before the router', () => {
  let server: Server;
  let base: string;
  const tokens = new TokenService(singleKey(Buffer.alloc(32, 9)));
  /** Runs of the probe operation. */
  let runs = 0;
  /** What the probe tells about when its answer changes by itself (undefined: nothing). */
  let changesAt: number | undefined;
  let version = 'v1';
  /** Versions by tenant and auction, moved by the events a spec tells it of. */
  let scoped = new ScopedVersions();
  const told = (...data: Record<string, unknown>[]) => scoped.changed(data.map((d) => ({ data: d }) as unknown as RecordedEvent));
  /** Set by a spec: what happens while the auction probe reads its answer. */
  let whileReading: (() => void) | null = null;
  let now = Date.parse('2026-11-24T12:00:00Z');

  const directory: AccessDirectory = {
    apiKey: async (hash) => (hash === sha256(API_KEY) ? { keyId: 'k1', tenants: ['a', 'b', 'closed'] } : null),
    tenant: async (id) => (id === 'a' || id === 'b' ? (tenantDoc(id) as never) : id === 'closed' ? (tenantDoc(id, false) as never) : null),
    member: async () => null,
    application: async () => null,
  };

  const probe = defineOperation({
    route: { number: 1, operationId: 'probeCatalogue', group: 'Lots', method: 'get', path: '/v1/things/{id}', auth: 'anon' },
    docs: { summary: 'A catalogue read with a large answer' },
    input: { params: z.object({ id: z.string() }), languageParam: 'LanguageCode' },
    output: { response: z.object({ id: z.string(), tenant: z.string(), language: z.string(), run: z.number(), text: z.string() }) },
    cache: { catalogue: true, personal: (query) => 'mine' in query },
    async handler({ params }, ctx) {
      runs += 1;
      if (changesAt !== undefined) ctx.changesAt(changesAt);
      return { id: params.id, tenant: ctx.tenant.Tenant, language: ctx.language, run: runs, text: 'lot '.repeat(600) };
    },
  });

  const auctionProbe = defineOperation({
    route: { number: 2, operationId: 'probeAuction', group: 'Auctions', method: 'get', path: '/v1/auctions/{id}/things', auth: 'anon' },
    docs: { summary: "A catalogue read that depends on one auction (with the tenant's settings)" },
    input: { params: z.object({ id: z.coerce.number() }) },
    output: { response: z.object({ auction: z.number(), run: z.number() }) },
    cache: { catalogue: true, auction: ({ params }) => Number(params.id) },
    async handler({ params }) {
      runs += 1;
      whileReading?.();
      return { auction: params.id, run: runs };
    },
  });

  before(async () => {
    const services = {
      documents: { forTenant: (tenant: string) => ({ tenant, collection: () => ({}) }) },
      search: {},
      files: {},
      generatedFiles: {},
      jobs: {},
      limiter: {},
      tokens,
      keys: {},
      projector: { waitFor: async () => true },
      logger: createLogger({ level: 'silent' }),
      now: () => new Date(now),
      readYourWritesTimeoutMs: 1000,
    } as unknown as Services;
    const config = { corsOrigins: [ORIGIN], trustProxy: false, responseCache: true };
    const app = buildApp(
      services,
      [probe, auctionProbe] as unknown as Operation[],
      config,
      (tenant, auction) => `${version}|${scoped.version(tenant, auction)}`,
      directory,
    );
    server = await listen(app, 0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server?.close(() => resolve())));
  beforeEach(() => {
    changesAt = undefined;
    version = `v${Math.random()}`;
    scoped = new ScopedVersions();
    whileReading = null;
  });

  const send = (method: string, p: string, headers: Record<string, string>) =>
    new Promise<Raw>((resolve, reject) => {
      const request = http.request(base + p, { method, headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end();
    });
  const anonymous = (tenant = 'a') => tokens.issue('anonymous', tenant, `anonymous:${Math.random()}`).Token;
  const as = (token: string, extra: Record<string, string> = {}) => ({ 'Api-Key': API_KEY, Authorization: `Bearer ${token}`, ...extra });

  /**
   * The same request three times, once the cache keeps its answer (from the second time it is asked for):
   * the first runs the operation; the second, with a token never seen before, takes the route and its cache
   * hit; the third, with the first one's token, is sent from the cache before the router.
   */
  async function threeWays(method: string, p: string, extra: Record<string, string> = {}) {
    const token = anonymous();
    await send('GET', p, as(anonymous()));
    const before = runs;
    const first = await send(method === 'HEAD' ? 'GET' : method, p, as(token));
    const route = await send(method, p, as(anonymous(), extra));
    const fast = await send(method, p, as(token, extra));
    expect(runs - before, 'the operation ran once').to.equal(1);
    return { first, route, fast };
  }

  it('sends a repeated read with the status, headers and bytes the route sends, without running the operation', async () => {
    const { first, route, fast } = await threeWays('GET', '/v1/things/1');
    expect(first.status).to.equal(200);
    expect(fast.status).to.equal(200);
    expect(stable(fast.headers)).to.deep.equal(stable(route.headers));
    expect(stable(fast.headers)).to.deep.equal(stable(first.headers));
    expect(fast.body.equals(first.body)).to.equal(true);
    expect(fast.headers['x-request-id']).to.be.a('string').and.not.equal(first.headers['x-request-id']);
    expect(fast.headers.vary).to.equal('Accept-Language, Authorization, Api-Key, Accept-Encoding');
    expect(fast.headers['cache-control']).to.equal('private, no-cache');
  });

  it('keeps a request id the caller sends', async () => {
    const { fast } = await threeWays('GET', '/v1/things/2', { 'X-Request-Id': 'abc-123' });
    expect(fast.headers['x-request-id']).to.equal('abc-123');
  });

  it('answers a matching If-None-Match with the same 304 as the route', async () => {
    const token = anonymous();
    await send('GET', '/v1/things/3', as(anonymous()));
    const first = await send('GET', '/v1/things/3', as(token));
    const conditional = { 'If-None-Match': String(first.headers.etag) };
    const route = await send('GET', '/v1/things/3', as(anonymous(), conditional));
    const fast = await send('GET', '/v1/things/3', as(token, conditional));
    expect(route.status).to.equal(304);
    expect(fast.status).to.equal(304);
    expect(fast.body.length).to.equal(0);
    expect(stable(fast.headers)).to.deep.equal(stable(route.headers));
    expect((await send('GET', '/v1/things/3', as(token, { 'If-None-Match': 'W/"other"' }))).status).to.equal(200);
  });

  for (const encoding of ['gzip', 'br', 'gzip;q=0.5, br;q=0.9', 'identity']) {
    it(`compresses as the route does for Accept-Encoding: ${encoding}`, async () => {
      const { first, route, fast } = await threeWays('GET', `/v1/things/enc-${encoding.length}`, { 'Accept-Encoding': encoding });
      expect(stable(fast.headers)).to.deep.equal(stable(route.headers));
      expect(fast.body.equals(route.body)).to.equal(true);
      expect(fast.headers['content-encoding']).to.equal(
        encoding === 'identity' ? undefined : encoding.startsWith('gzip;') ? 'br' : encoding,
      );
      expect(Number(fast.headers['content-length'])).to.equal(fast.body.length);
      if (encoding === 'identity') expect(fast.body.equals(first.body)).to.equal(true);
    });
  }

  it('answers HEAD with the headers of the GET and no body', async () => {
    const { route, fast } = await threeWays('HEAD', '/v1/things/4');
    expect(fast.status).to.equal(200);
    expect(fast.body.length).to.equal(0);
    expect(stable(fast.headers)).to.deep.equal(stable(route.headers));
  });

  it('adds the CORS headers for an allowed origin, and none for another', async () => {
    const allowed = await threeWays('GET', '/v1/things/5', { Origin: ORIGIN });
    expect(allowed.fast.headers['access-control-allow-origin']).to.equal(ORIGIN);
    expect(allowed.fast.headers.vary).to.equal('Origin, Accept-Language, Authorization, Api-Key, Accept-Encoding');
    expect(stable(allowed.fast.headers)).to.deep.equal(stable(allowed.route.headers));
    const other = await threeWays('GET', '/v1/things/6', { Origin: 'https://elsewhere.example' });
    expect(other.fast.headers['access-control-allow-origin']).to.equal(undefined);
    expect(stable(other.fast.headers)).to.deep.equal(stable(other.route.headers));
  });

  it('keeps answers per tenant and per language, Accept-Language and the language parameters included', async () => {
    const token = anonymous();
    const en = JSON.parse((await send('GET', '/v1/things/7', as(token))).body.toString());
    await send('GET', '/v1/things/7', as(token, { 'Accept-Language': 'sv-SE, en;q=0.5' }));
    const sv = JSON.parse((await send('GET', '/v1/things/7', as(token, { 'Accept-Language': 'sv-SE, en;q=0.5' }))).body.toString());
    const lang = JSON.parse((await send('GET', '/v1/things/7?lang=sv', as(token))).body.toString());
    const code = JSON.parse((await send('GET', '/v1/things/7?LanguageCode=sv&lang=en', as(token))).body.toString());
    // A repeated language parameter is refused by the route, the second time too: no answer is found for it.
    for (let i = 0; i < 2; i++) {
      const repeated = await send('GET', '/v1/things/7?lang=sv&lang=de', as(token));
      expect([repeated.status, JSON.parse(repeated.body.toString()).code]).to.deep.equal([400, 'validation-failed']);
    }
    const b = JSON.parse((await send('GET', '/v1/things/7', as(anonymous('b')))).body.toString());
    expect([en.language, sv.language, lang.language, code.language]).to.deep.equal(['en', 'sv', 'sv', 'sv']);
    expect(b.tenant).to.equal('b');
    const again = JSON.parse((await send('GET', '/v1/things/7', as(token, { 'Accept-Language': 'sv' }))).body.toString());
    expect(again.run).to.equal(sv.run);
  });

  it('checks credentials it has not checked before: an unknown Api-Key, a bad token, a closed tenant', async () => {
    const token = anonymous();
    await send('GET', '/v1/things/8', as(token));
    expect((await send('GET', '/v1/things/8', { 'Api-Key': 'unknown-key', Authorization: `Bearer ${token}` })).status).to.equal(401);
    expect((await send('GET', '/v1/things/8', { 'Api-Key': API_KEY })).status).to.equal(401);
    expect((await send('GET', '/v1/things/8', as(`${token.slice(0, -2)}xx`))).status).to.equal(401);
    expect((await send('GET', '/v1/things/8', as(anonymous('closed')))).status).to.equal(401);
    expect((await send('GET', '/v1/things/8', as(anonymous('elsewhere')))).status).to.equal(401);
  });

  it('runs the operation for a caller who makes the answer their own, and for another route or a body', async () => {
    const token = anonymous();
    await send('GET', '/v1/things/9', as(token));
    const before = runs;
    await send('GET', '/v1/things/9?mine=1', as(token));
    await send('GET', '/v1/things/9?mine=1', as(token));
    expect(runs - before).to.equal(2);
    expect((await send('GET', '/v1/things/9/', as(token))).status).to.equal(200);
    expect((await send('GET', '/v1/elsewhere', as(token))).status).to.equal(404);
  });

  it('keeps an answer from the second time it is asked for, and runs the operation again once the projections have moved', async () => {
    const token = anonymous();
    const once = JSON.parse((await send('GET', '/v1/things/10', as(token))).body.toString());
    const first = JSON.parse((await send('GET', '/v1/things/10', as(token))).body.toString());
    expect(first.run).to.equal(once.run + 1);
    expect(JSON.parse((await send('GET', '/v1/things/10', as(token))).body.toString()).run).to.equal(first.run);
    version = 'moved';
    const second = JSON.parse((await send('GET', '/v1/things/10', as(token))).body.toString());
    expect(second.run).to.equal(first.run + 1);
  });

  it('reuses an answer up to the instant its handler says it changes, at most a minute, and 1 s when it says nothing', async () => {
    const token = anonymous();
    const runAt = async (at: number, p: string) => {
      now = at;
      return JSON.parse((await send('GET', p, as(token))).body.toString()).run as number;
    };
    /** The first answer the cache keeps (the second time a key is asked for). */
    const keptAt = async (at: number, p: string) => (await runAt(at, p), runAt(at, p));
    const t = Date.parse('2026-11-24T13:00:00Z');
    // Said: changes in 2 s. Reused until then, not after.
    changesAt = t + 2000;
    const first = await keptAt(t, '/v1/things/11');
    expect(await runAt(t + 1999, '/v1/things/11')).to.equal(first);
    expect(await runAt(t + 2000, '/v1/things/11')).to.equal(first + 1);
    // Said: changes in an hour. Reused for at least half a minute (lifetimes are spread), never beyond one.
    changesAt = t + 3_600_000;
    const long = await keptAt(t + 10_000, '/v1/things/12');
    expect(await runAt(t + 39_999, '/v1/things/12')).to.equal(long);
    expect(await runAt(t + 70_000, '/v1/things/12')).to.equal(long + 1);
    // Said nothing: reused for at least half a second, never beyond 1 s.
    changesAt = undefined;
    const plain = await keptAt(t + 80_000, '/v1/things/13');
    expect(await runAt(t + 80_499, '/v1/things/13')).to.equal(plain);
    expect(await runAt(t + 81_000, '/v1/things/13')).to.equal(plain + 1);
  });

  describe('answers that depend on one auction', () => {
    const runOf = async (p: string, token: string) => JSON.parse((await send('GET', p, as(token))).body.toString()).run as number;
    /** The answer the cache keeps for a path (from the second time it is asked for), and the token that asked. */
    const kept = async (p: string) => {
      const token = anonymous();
      await runOf(p, token);
      return { token, run: await runOf(p, token) };
    };

    it('stay cached while other auctions of the tenant and other tenants change, by the route and before it', async () => {
      // Lot 7 is seen in auction 2 (its catalogue event) before the answer is kept.
      told({ tenant: 'a', lotId: 7, auctionId: 2 });
      const one = await kept('/v1/auctions/1/things');
      told({ tenant: 'a', auctionId: 2 }, { tenant: 'a', lotId: 7, auctionId: 2 }, { tenant: 'b', auctionId: 1 });
      // Its bids (no auction named) move auction 2 alone.
      told({ tenant: 'a', lotId: 7, bidId: 'x' });
      expect(await runOf('/v1/auctions/1/things', one.token), 'before the router').to.equal(one.run);
      expect(await runOf('/v1/auctions/1/things', anonymous()), 'by the route').to.equal(one.run);
      // A tenant-wide answer moves with any change in its tenant.
      const wide = await kept('/v1/things/20');
      told({ tenant: 'a', lotId: 7, bidId: 'y' });
      expect(await runOf('/v1/things/20', wide.token)).to.equal(wide.run + 1);
    });

    it('are read again when their auction changes, or the tenant outside any auction, or a lot not seen yet', async () => {
      let answer = await kept('/v1/auctions/1/things');
      told({ tenant: 'a', auctionId: 1 });
      expect(await runOf('/v1/auctions/1/things', answer.token)).to.equal(answer.run + 1);
      answer = { ...answer, run: await runOf('/v1/auctions/1/things', answer.token) };
      told({ tenant: 'a', categoryId: 3 });
      expect(await runOf('/v1/auctions/1/things', answer.token), 'a category').to.equal(answer.run + 1);
      answer = { ...answer, run: await runOf('/v1/auctions/1/things', answer.token) };
      // A lot not seen yet may have been in auction 1 (this process learns a lot's auction from its events).
      told({ tenant: 'a', lotId: 99, auctionId: 2 });
      expect(await runOf('/v1/auctions/1/things', answer.token), 'a lot not seen yet').to.equal(answer.run + 1);
      answer = { ...answer, run: await runOf('/v1/auctions/1/things', answer.token) };
      told({ tenant: 'a', lotId: 99, auctionId: 1 });
      expect(await runOf('/v1/auctions/1/things', answer.token), 'a lot moved between auctions').to.equal(answer.run + 1);
      answer = { ...answer, run: await runOf('/v1/auctions/1/things', answer.token) };
      told({ someone: 'without a tenant' });
      expect(await runOf('/v1/auctions/1/things', answer.token), 'an event without a tenant').to.equal(answer.run + 1);
    });

    it('are kept only when their own auction did not change while they were read', async () => {
      const token = anonymous();
      await runOf('/v1/auctions/3/things', token);
      // Another auction changes meanwhile: the answer is kept with its auction's version, and served again.
      whileReading = () => told({ tenant: 'a', auctionId: 4 });
      const read = await runOf('/v1/auctions/3/things', token);
      whileReading = null;
      expect(await runOf('/v1/auctions/3/things', token)).to.equal(read);
      // Its own auction changes meanwhile: kept with the version from before, so the next request reads again.
      told({ tenant: 'a', auctionId: 3 });
      whileReading = () => told({ tenant: 'a', auctionId: 3 });
      const during = await runOf('/v1/auctions/3/things', token);
      whileReading = null;
      expect(during).to.equal(read + 1);
      expect(await runOf('/v1/auctions/3/things', token)).to.equal(during + 1);
      expect(await runOf('/v1/auctions/3/things', token)).to.equal(during + 1);
    });
  });
});
