/**
 * Operations 24–26: GET /v1/me/watchlist, PUT and DELETE /v1/me/watchlist/{lotId}.
 */
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

describe('the watchlist (operations 24–26)', () => {
  let server: TestServer;
  let token: string;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 1000 });

  const memberToken = (tenant: string, memberId: number) => server.issueMemberToken(tenant, memberId);

  const put = (lotId: number | string, body?: unknown, t = token) => server.request('PUT', `/v1/me/watchlist/${lotId}`, { token: t, body });
  const del = (lotId: number | string, t = token) => server.request('DELETE', `/v1/me/watchlist/${lotId}`, { token: t });
  const list = (query = '', t = token) => server.request('GET', `/v1/me/watchlist${query}`, { token: t });
  const watched = async (query = '', t = token) => {
    const response = await list(query, t);
    expect(response.status, response.text).to.equal(200);
    return new Map<number, string>(response.body.Items.map((i: { Id: number; WatchType: string }) => [i.Id, i.WatchType]));
  };

  before(async () => {
    server = await startTestServer();
    token = await server.memberToken('demo');
    await importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant: 'demo',
      memberId: 2,
      email: 'other@example.com',
      passwordHash: 'scrypt$disabled',
      firstName: 'O',
      lastName: 'T',
      language: 'en',
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  describe('PUT /v1/me/watchlist/{lotId}', () => {
    it('watches a lot with no body as type "watch" and appends one LotWatched of the token\'s member', async () => {
      const before = await head();
      const response = await put(10);
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ LotId: 10, Watched: true, Type: 'watch' });
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['LotWatched']);
      expect(events[0].streamId).to.equal('watchlist-demo-1');
      expect(events[0].data).to.include({ tenant: 'demo', memberId: 1, lotId: 10, watchType: 'watch' });
    });

    it('shows the lot in GET /v1/me/watchlist right after the PUT (read your writes)', async () => {
      expect((await put(30)).status).to.equal(200);
      const response = await list();
      expect(response.status).to.equal(200);
      const item = response.body.Items.find((i: { Id: number }) => i.Id === 30);
      expect(item, response.text).to.not.equal(undefined);
      expect(item).to.include({ Id: 30, WatchType: 'watch' });
      expect(item.WatchedAt).to.match(/Z$/);
      expect(item).to.have.property('Title');
      expect(item).to.have.property('AuctionId');
    });

    it('takes "watch" as the default Type of an empty body', async () => {
      const before = await head();
      const response = await put(11, {});
      expect(response.body).to.deep.equal({ LotId: 11, Watched: true, Type: 'watch' });
      expect((await since(before))[0].data).to.include({ lotId: 11, watchType: 'watch' });
    });

    it('watches with the other watch types', async () => {
      for (const [lotId, type] of [
        [12, 'favourite'],
        [13, 'reminder'],
      ] as const) {
        const before = await head();
        const response = await put(lotId, { Type: type });
        expect(response.status, response.text).to.equal(200);
        expect(response.body).to.deep.equal({ LotId: lotId, Watched: true, Type: type });
        const events = await since(before);
        expect(events.map((e) => e.type)).to.deep.equal(['LotWatched']);
        expect(events[0].data).to.include({ lotId, watchType: type });
      }
      const items = await watched();
      expect(items.get(12)).to.equal('favourite');
      expect(items.get(13)).to.equal('reminder');
    });

    it('answers 400 naming body.Type for an unknown Type, and appends nothing', async () => {
      const before = await head();
      for (const Type of ['bogus', 'WATCH', '', 3, null]) {
        const problem = expectProblem(await put(14, { Type }), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          JSON.stringify(Type),
        ).to.include('body.Type');
      }
      expect(await head()).to.equal(before);
      expect((await watched()).has(14)).to.equal(false);
    });

    it('answers 400 when the body Id differs from the path, and accepts an Id equal to it', async () => {
      const before = await head();
      const problem = expectProblem(await put(15, { Id: 16 }), 400);
      expect(problem.errors.map((e: { field: string }) => e.field)).to.include('body.Id');
      expectProblem(await put(15, { Id: '15' }), 400);
      expect(await head()).to.equal(before);
      const ok = await put(15, { Id: 15 });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.LotId).to.equal(15);
    });

    it("ignores MemberId in the body: the event carries the token's member", async () => {
      const before = await head();
      const response = await put(17, { MemberId: 2, Type: 'watch' });
      expect(response.status, response.text).to.equal(200);
      const events = await since(before);
      expect(events).to.have.length(1);
      expect(events[0].streamId).to.equal('watchlist-demo-1');
      expect(events[0].data).to.include({ memberId: 1, lotId: 17 });
      expect((await watched()).has(17)).to.equal(true);
      expect((await watched('', memberToken('demo', 2))).has(17)).to.equal(false);
    });

    it('is idempotent: a second PUT with the same type answers 200 and appends nothing', async () => {
      const before = await head();
      expect((await put(18, { Type: 'favourite' })).status).to.equal(200);
      const again = await put(18, { Type: 'favourite' });
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal({ LotId: 18, Watched: true, Type: 'favourite' });
      expect((await since(before)).map((e) => e.type)).to.deep.equal(['LotWatched']);
    });

    it('appends one WatchTypeChanged when an already watched lot is put with another type', async () => {
      expect((await put(19)).status).to.equal(200);
      const before = await head();
      const response = await put(19, { Type: 'reminder' });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ LotId: 19, Watched: true, Type: 'reminder' });
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['WatchTypeChanged']);
      expect(events[0].data).to.include({ tenant: 'demo', memberId: 1, lotId: 19, watchType: 'reminder' });
      expect((await watched()).get(19)).to.equal('reminder');
    });

    it('answers 404 for a lot that does not exist, and appends nothing', async () => {
      const before = await head();
      expectProblem(await put(999_999), 404);
      expectProblem(await put(1221, { Type: 'favourite' }), 404);
      expect(await head()).to.equal(before);
    });

    it('answers 404 for a lot id that exists only in another tenant, and appends nothing', async () => {
      // demo2 has lots 1..60; lot 100 is a lot of demo only.
      const before = await head();
      const demo2 = memberToken('demo2', 1);
      expectProblem(await put(100, undefined, demo2), 404);
      expect(await head()).to.equal(before);
      expect((await put(5, undefined, demo2)).status).to.equal(200);
    });

    it('answers 400 for a lot id that is not a positive int32, and appends nothing', async () => {
      const before = await head();
      for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999', '1e3']) expectProblem(await put(id), 400);
      expect(await head()).to.equal(before);
    });

    it('answers 415 for a body that is not JSON, and appends nothing', async () => {
      const before = await head();
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const response = await server.request('PUT', '/v1/me/watchlist/20', {
          token,
          rawBody: 'Type=watch',
          headers: { 'Content-Type': contentType },
        });
        expectProblem(response, 415);
      }
      expect(await head()).to.equal(before);
    });

    it('answers 413 for a body over 64 kB, and appends nothing', async () => {
      const before = await head();
      const rawBody = JSON.stringify({ Type: 'watch', Padding: 'x'.repeat(70 * 1024) });
      expectProblem(
        await server.request('PUT', '/v1/me/watchlist/20', { token, rawBody, headers: { 'Content-Type': 'application/json' } }),
        413,
      );
      expect(await head()).to.equal(before);
    });

    it('answers 400 for invalid JSON, a JSON array and JSON null, and appends nothing', async () => {
      const before = await head();
      for (const rawBody of ['{"Type":', '{Type: "watch"}', '[]', 'null', '"watch"']) {
        const response = await server.request('PUT', '/v1/me/watchlist/20', {
          token,
          rawBody,
          headers: { 'Content-Type': 'application/json' },
        });
        expectProblem(response, 400);
      }
      expect(await head()).to.equal(before);
    });
  });

  describe('GET /v1/me/watchlist', () => {
    it('filters by the type query parameter', async () => {
      const favourites = await list('?type=favourite');
      expect(favourites.status).to.equal(200);
      expect(favourites.body.Items.length).to.be.greaterThan(0);
      for (const item of favourites.body.Items) expect(item.WatchType).to.equal('favourite');
      expect(favourites.body.Items.map((i: { Id: number }) => i.Id)).to.include.members([12, 18]);
      expect(favourites.body.TotalCount).to.equal(favourites.body.Items.length);

      const upper = await list('?TYPE=favourite');
      expect(upper.body.TotalCount).to.equal(favourites.body.TotalCount);
    });

    it('answers 400 for an unknown type, and for a page or pageSize out of range', async () => {
      for (const query of ['?type=bogus', '?page=0', '?page=abc', '?pageSize=0', '?pageSize=101', '?page=1&page=2'])
        expectProblem(await list(query), 400);
    });

    it('answers the paging envelope', async () => {
      const all = await list('?pageSize=100');
      expect(all.status).to.equal(200);
      const total = all.body.TotalCount;
      expect(total).to.equal(all.body.Items.length);
      expect(total).to.be.greaterThan(4);

      const first = await list('?page=1&pageSize=2');
      expect(first.body).to.have.all.keys('Items', 'TotalCount', 'Page', 'PageSize', 'TotalPages');
      expect(first.body).to.include({ TotalCount: total, Page: 1, PageSize: 2, TotalPages: Math.ceil(total / 2) });
      expect(first.body.Items).to.have.length(2);
      const second = await list('?Page=2&PageSize=2');
      expect(second.body.Page).to.equal(2);
      expect(second.body.Items).to.have.length(2);
      const ids = [...first.body.Items, ...second.body.Items].map((i: { Id: number }) => i.Id);
      expect(new Set(ids).size).to.equal(4);

      const past = await list(`?page=${Math.ceil(total / 2) + 1}&pageSize=2`);
      expect(past.status).to.equal(200);
      expect(past.body.Items).to.deep.equal([]);
      expect(past.body.TotalCount).to.equal(total);

      const defaults = await list();
      expect(defaults.body).to.include({ Page: 1, PageSize: 20 });
    });
  });

  describe('DELETE /v1/me/watchlist/{lotId}', () => {
    it('is idempotent: 200 twice and one LotUnwatched', async () => {
      expect((await put(21)).status).to.equal(200);
      const before = await head();
      const first = await del(21);
      expect(first.status, first.text).to.equal(200);
      expect(first.body).to.deep.equal({ LotId: 21, Watched: false, Type: null });
      const second = await del(21);
      expect(second.status).to.equal(200);
      expect(second.body).to.deep.equal({ LotId: 21, Watched: false, Type: null });
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['LotUnwatched']);
      expect(events[0].data).to.include({ tenant: 'demo', memberId: 1, lotId: 21 });
      expect((await watched('?pageSize=100')).has(21)).to.equal(false);
    });

    it('answers 200 and appends nothing for a lot that was never watched, even an unknown one', async () => {
      const before = await head();
      expect((await del(22)).status).to.equal(200);
      expect((await del(999_999)).status).to.equal(200);
      expect(await head()).to.equal(before);
    });

    it('answers 400 for a lot id that is not a positive int32', async () => {
      expectProblem(await del('abc'), 400);
      expectProblem(await del('0'), 400);
    });
  });

  describe('who may use it', () => {
    it('answers 401 to an anonymous token, an application token and no token on all three operations, and appends nothing', async () => {
      const application = await server.request('POST', '/v1/tokens', {
        body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
      });
      const before = await head();
      for (const t of [await server.anonymousToken('demo'), application.body.Token, undefined]) {
        expectProblem(await server.request('GET', '/v1/me/watchlist', { token: t }), 401);
        expectProblem(await server.request('PUT', '/v1/me/watchlist/25', { token: t, body: { Type: 'watch' } }), 401);
        expectProblem(await server.request('DELETE', '/v1/me/watchlist/10', { token: t }), 401);
      }
      expect(await head()).to.equal(before);
    });

    it("keeps two members' watchlists separate", async () => {
      const other = memberToken('demo', 2);
      const before = await head();
      expect((await put(40, { Type: 'favourite' }, other)).status).to.equal(200);
      const events = await since(before);
      expect(events).to.have.length(1);
      expect(events[0].streamId).to.equal('watchlist-demo-2');
      expect(events[0].data).to.include({ memberId: 2, lotId: 40 });

      const mine = await watched('?pageSize=100');
      const theirs = await watched('?pageSize=100', other);
      expect(mine.has(40)).to.equal(false);
      expect([...theirs.keys()]).to.deep.equal([40]);

      // Member 2 removing lot 10 leaves member 1's watch of lot 10 alone.
      expect((await del(10, other)).status).to.equal(200);
      expect((await watched('?pageSize=100')).get(10)).to.equal('watch');
    });
  });
});
