import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { importRecord } from '../../app/features/intake.ts';
import { signingKeyOf } from '../support/signing-key.ts';

/**
 * The tenant comes from the token: a `demo2` token never sees `demo` data, even where the numeric ids are the
 * same (both tenants have lot ids 1..60, auction 1 and categories 1..14). API.md: "A resource of another
 * tenant is answered exactly as a resource that does not exist: 404."
 * demo: 6 auctions, 1280 lots (EUR, en/sv/de; the timed auction's 2001..2060). demo2: auction 1, 60 lots (SEK, en). demo-closed: public access off.
 */

describe('tenant isolation of the catalogue', () => {
  let server: TestServer;
  let demo: string;
  let demo2: string;
  const as = (token: string, p: string, headers: Record<string, string> = {}) => server.request('GET', p, { token, headers });

  /** A token like the server's own, with some claims changed, signed with `secret` (default: the server's). */
  const forge = (claims: Record<string, unknown>, secret?: string, algorithm: jwt.Algorithm = 'HS256') => {
    const real = jwt.decode(demo) as jwt.JwtPayload;
    const own = signingKeyOf(server.dataDir);
    return jwt.sign({ ...real, jti: `forged-${Math.random()}`, ...claims }, secret ?? own.secret, { algorithm, keyid: own.id });
  };

  before(async () => {
    server = await startTestServer();
    demo = await server.anonymousToken('demo');
    demo2 = await server.anonymousToken('demo2');
  });
  after(async () => server?.close());

  describe('a demo2 token', () => {
    it("gets 404 for demo's auctions that demo2 does not have", async () => {
      for (const id of [2, 3, 4, 5]) {
        expect((await as(demo, `/v1/auctions/${id}`)).status, `demo sees auction ${id}`).to.equal(200);
        const problem = expectProblem(await as(demo2, `/v1/auctions/${id}`), 404);
        expect(problem.detail).to.not.match(/demo\b|tenant/i);
      }
    });

    it("gets its own auction 1, not demo's auction 1", async () => {
      const mine = await as(demo2, '/v1/auctions/1');
      const theirs = await as(demo, '/v1/auctions/1');
      expect(mine.status).to.equal(200);
      expect(mine.body).to.include({ Id: 1, Currency: 'SEK', Title: 'Nordic Modern', LotCount: 60 });
      expect(theirs.body).to.include({ Currency: 'EUR', LotCount: 400 });
    });

    it('lists only its own auctions', async () => {
      const r = await as(demo2, '/v1/auctions');
      expect(r.body.TotalCount).to.equal(1);
      expect(r.body.Items.map((a: any) => [a.Id, a.Currency])).to.deep.equal([[1, 'SEK']]);
      for (const status of ['current', 'upcoming', 'closed']) {
        const byStatus = await as(demo2, `/v1/auctions?status=${status}`);
        for (const a of byStatus.body.Items) expect(a.Currency).to.equal('SEK');
      }
      expect((await as(demo2, '/v1/auctions?status=closed')).body.TotalCount).to.equal(0);
    });

    it("gets 404 for demo's lot ids above its own", async () => {
      for (const id of [61, 100, 401, 851, 1000, 1220]) {
        expect((await as(demo, `/v1/lots/${id}`)).status, `demo sees lot ${id}`).to.equal(200);
        expectProblem(await as(demo2, `/v1/lots/${id}`), 404);
      }
    });

    it('gets its own lot for an id both tenants use', async () => {
      for (const id of [1, 30, 60]) {
        const mine = await as(demo2, `/v1/lots/${id}`);
        const theirs = await as(demo, `/v1/lots/${id}`);
        expect(mine.status).to.equal(200);
        expect(mine.body).to.include({ Id: id, AuctionId: 1, Currency: 'SEK' });
        for (const image of mine.body.Images) expect(image).to.include('/demo2/');
        expect(theirs.body.Currency).to.equal('EUR');
      }
    });

    it('never sees a demo lot in the list, with or without filters', async () => {
      const ids: number[] = [];
      for (let page = 1; ; page++) {
        const r = await as(demo2, `/v1/lots?ShowClosedLots=true&pageSize=100&page=${page}`);
        expect(r.status).to.equal(200);
        expect(r.body.TotalCount).to.equal(60);
        for (const lot of r.body.Items) {
          expect(lot).to.include({ AuctionId: 1, Currency: 'SEK' });
          expect(lot.Id).to.be.within(1, 60);
          for (const image of lot.Images) expect(image).to.include('/demo2/');
        }
        ids.push(...r.body.Items.map((l: any) => l.Id));
        if (page >= r.body.TotalPages) break;
      }
      expect(ids.sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 60 }, (_, i) => i + 1));
      for (const query of ['AuctionId=2', 'AuctionId=4&ShowClosedLots=true', 'CombiId=1', 'StartLotNumber=61']) {
        const r = await as(demo2, `/v1/lots?${query}`);
        expect(r.status).to.equal(200);
        expect(r.body.TotalCount, query).to.equal(0);
      }
    });

    it("does not find demo's Swedish or German words through SearchTerms", async () => {
      expect((await as(demo, '/v1/lots?SearchTerms=stol&LanguageCode=sv&pageSize=1')).body.TotalCount).to.be.greaterThan(0);
      for (const query of [
        'SearchTerms=stol&LanguageCode=sv',
        'SearchTerms=Stuhl&LanguageCode=de',
        'MetaDataProperties[Material]=ek&LanguageCode=sv',
      ]) {
        const r = await as(demo2, `/v1/lots?${query}&ShowClosedLots=true`);
        expect(r.body.TotalCount, query).to.equal(0);
      }
    });

    it('never finds a demo lot by search', async () => {
      for (const [q, lang] of [
        ['stol', 'sv'],
        ['Stuhl', 'de'],
        ['Eiche', 'de'],
        ['spegel', 'sv'],
        ['Schrank', 'de'],
      ]) {
        const r = await as(demo2, `/v1/lots/search?q=${q}&LanguageCode=${lang}&ShowClosedLots=true`);
        expect(r.status).to.equal(200);
        expect(r.body.TotalCount, `${q} (${lang})`).to.equal(0);
        expect(r.body.Facets).to.deep.equal({ CategoryId: [], AuctionId: [] });
      }
      // A word both tenants use finds only demo2's lots.
      const oak = await as(demo2, '/v1/lots/search?q=oak&ShowClosedLots=true&pageSize=100');
      expect(oak.body.TotalCount).to.be.greaterThan(0);
      expect(oak.body.TotalCount).to.equal((await as(demo2, '/v1/lots?SearchTerms=oak&ShowClosedLots=true&pageSize=1')).body.TotalCount);
      for (const lot of oak.body.Items) expect(lot).to.include({ AuctionId: 1, Currency: 'SEK' });
      expect(oak.body.Facets.AuctionId).to.deep.equal([{ Value: 1, Count: oak.body.TotalCount }]);
      const demoOak = await as(demo, '/v1/lots/search?q=oak&ShowClosedLots=true&pageSize=1');
      expect(demoOak.body.TotalCount).to.be.greaterThan(oak.body.TotalCount);
    });

    it('answers in its own languages only: a language demo2 does not publish falls back to en', async () => {
      const r = await as(demo2, '/v1/lots/1?lang=sv', { 'Accept-Language': 'de' });
      expect(r.headers.get('content-language')).to.equal('en');
      const c = await as(demo2, '/v1/categories', { 'Accept-Language': 'sv' });
      expect(c.headers.get('content-language')).to.equal('en');
      expect(c.body.find((n: any) => n.Id === 1).Name).to.equal('Furniture');
    });

    it('sees its own category counts, not demo’s, and 404 for category ids it does not have', async () => {
      const mine = await as(demo2, '/v1/categories');
      const theirs = await as(demo, '/v1/categories');
      const total = (nodes: any[]) => nodes.reduce((s, n) => s + n.LotCount, 0);
      expect(total(mine.body)).to.equal(60);
      expect(total(theirs.body)).to.equal(1280);
      const one = await as(demo2, '/v1/categories/1');
      expect(one.body.LotCount).to.equal(mine.body.find((n: any) => n.Id === 1).LotCount);
      expect(one.body.LotCount).to.not.equal(theirs.body.find((n: any) => n.Id === 1).LotCount);
      for (const id of [15, 99]) expectProblem(await as(demo2, `/v1/categories/${id}`), 404);
    });

    it("a demo2 member token sees demo2's catalogue only", async () => {
      const member = await server.memberToken('demo2');
      expectProblem(await as(member, '/v1/lots/100'), 404);
      expectProblem(await as(member, '/v1/auctions/3'), 404);
      const lots = await as(member, '/v1/lots?pageSize=1&ShowClosedLots=true');
      expect(lots.body.TotalCount).to.equal(60);
    });
  });

  describe('tokens and tenants', () => {
    it('an anonymous token for demo-closed (public access off) cannot be obtained: 404', async () => {
      expectProblem(await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'demo-closed' } }), 404);
    });

    it('an anonymous token for a tenant that is not served cannot be obtained: 404, the same answer', async () => {
      const closed = await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'demo-closed' } });
      const unknown = await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'no-such-house' } });
      expectProblem(unknown, 404);
      expect(unknown.body.detail).to.equal(closed.body.detail);
    });

    it('a token made here the way the server makes them is accepted (the forged tokens below differ only in what they test)', async () => {
      const r = await as(forge({ tenant: 'demo2' }), '/v1/lots?pageSize=1');
      expect(r.status).to.equal(200);
      expect(r.body.Items[0].Currency).to.equal('SEK');
    });

    it('an anonymous token for demo-closed signed with the server key is still refused: 401', async () => {
      const token = forge({ tenant: 'demo-closed' });
      expectProblem(await as(token, '/v1/lots'), 401);
      expectProblem(await as(token, '/v1/auctions'), 401);
    });

    it('a token for a tenant that is not served is 401', async () => {
      expectProblem(await as(forge({ tenant: 'no-such-house' }), '/v1/lots'), 401);
    });

    it('a token of a tenant the Api-Key is not issued for is 401', async () => {
      await importRecord(server.runtime.services.log, {
        kind: 'apiKey',
        key: 'demo2-only-key-0123456789',
        name: 'demo2 only',
        tenants: ['demo2'],
      });
      await server.runtime.services.projector.catchUp();
      const ok = await server.request('GET', '/v1/lots?pageSize=1', { token: demo2, apiKey: 'demo2-only-key-0123456789' });
      expect(ok.status).to.equal(200);
      expect(ok.body.Items[0].Currency).to.equal('SEK');
      for (const p of ['/v1/lots', '/v1/lots/1', '/v1/auctions', '/v1/categories', '/v1/lots/search?q=oak']) {
        expectProblem(await server.request('GET', p, { token: demo, apiKey: 'demo2-only-key-0123456789' }), 401);
      }
    });

    it('a token whose tenant claim was changed without the server key is 401', async () => {
      const parts = demo2.split('.');
      const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
      const tampered = [parts[0], Buffer.from(JSON.stringify({ ...payload, tenant: 'demo' })).toString('base64url'), parts[2]].join('.');
      expectProblem(await as(tampered, '/v1/lots/100'), 401);
      expectProblem(await as(forge({ tenant: 'demo' }, 'a-guessed-secret-that-is-long-enough-0123456789'), '/v1/lots/100'), 401);
    });

    it('an unsigned token (alg none) is 401', async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      const payload = Buffer.from(JSON.stringify(jwt.decode(demo))).toString('base64url');
      expectProblem(await as(`${header}.${payload}.`, '/v1/lots'), 401);
    });
  });
});
