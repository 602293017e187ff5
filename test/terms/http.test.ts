/**
 * Operation 11: POST /v1/auctions/{id}/terms-acceptance.
 */
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

describe('POST /v1/auctions/{id}/terms-acceptance (operation 11)', () => {
  let server: TestServer;
  let token: string;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 1000 });
  const accept = (auctionId: number | string, t: string | null = token) =>
    server.request('POST', `/v1/auctions/${auctionId}/terms-acceptance`, { token: t });

  const memberToken = (tenant: string, memberId: number) => server.issueMemberToken(tenant, memberId);

  before(async () => {
    server = await startTestServer();
    token = await server.memberToken('demo');
  });
  after(async () => server?.close());

  it("answers 200 and appends one AuctionTermsAccepted of the token's member", async () => {
    const before = await head();
    const response = await accept(2);
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.include({ AuctionId: 2, Accepted: true });
    expect(response.body.AcceptedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const events = await since(before);
    expect(events.map((e) => e.type)).to.deep.equal(['AuctionTermsAccepted']);
    expect(events[0].streamId).to.equal('terms-demo-1');
    expect(events[0].data).to.include({ tenant: 'demo', memberId: 1, auctionId: 2, at: response.body.AcceptedAt });
  });

  it('is idempotent: accepting again answers 200 with the first acceptance and appends nothing', async () => {
    const first = await accept(5);
    expect(first.status).to.equal(200);
    const before = await head();
    const second = await accept(5);
    expect(second.status).to.equal(200);
    expect(second.body).to.deep.equal(first.body);
    expect(await head()).to.equal(before);
    const all = await server.events();
    expect(all.filter((e) => e.type === 'AuctionTermsAccepted' && e.data.auctionId === 5 && e.data.memberId === 1)).to.have.length(1);
  });

  it('ignores a JSON body', async () => {
    const response = await server.request('POST', '/v1/auctions/1/terms-acceptance', { token, body: { AuctionId: 3, MemberId: 2 } });
    expect(response.status, response.text).to.equal(200);
    expect(response.body.AuctionId).to.equal(1);
  });

  it('answers 404 for an unknown auction, and appends nothing', async () => {
    const before = await head();
    expectProblem(await accept(999), 404);
    expectProblem(await accept(2147483647), 404);
    expect(await head()).to.equal(before);
  });

  it('answers 404 for an auction of another tenant only (demo2 has auction 1 only), and appends nothing', async () => {
    const before = await head();
    expectProblem(await accept(2, memberToken('demo2', 1)), 404);
    expect(await head()).to.equal(before);
  });

  it('answers 400 for an auction id that is not a positive int32, and appends nothing', async () => {
    const before = await head();
    for (const id of ['abc', '0', '-2', '2147483648']) expectProblem(await accept(id), 400);
    expect(await head()).to.equal(before);
  });

  it('answers 401 to an anonymous token, an application token, no token and a bad token, and appends nothing', async () => {
    const application = await server.request('POST', '/v1/tokens', {
      body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
    });
    const before = await head();
    expectProblem(await accept(2, await server.anonymousToken('demo')), 401);
    expectProblem(await accept(2, application.body.Token), 401);
    expectProblem(await accept(2, null), 401);
    expectProblem(await accept(2, 'not-a-valid-token-at-all'), 401);
    expect(await head()).to.equal(before);
  });

  it('answers 401 to the member token of a member who was removed, and appends nothing', async () => {
    const log = server.runtime.services.log;
    await importRecord(log, {
      kind: 'member',
      tenant: 'demo',
      memberId: 2,
      email: 'leaving@example.com',
      passwordHash: 'scrypt$disabled',
      firstName: 'L',
      lastName: 'M',
      language: 'en',
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
    const leaving = memberToken('demo', 2);
    expect((await accept(1, leaving)).status).to.equal(200);

    await importRecord(log, { kind: 'memberRemoved', tenant: 'demo', memberId: 2, at: new Date().toISOString() });
    await server.runtime.services.projector.catchUp();
    const before = await head();
    expectProblem(await accept(2, leaving), 401);
    expect(await head()).to.equal(before);
  });
});
