// COSTS.md "Where else the rules show": a bid (operation 58) answers `CostEstimate`, operation 64's answer for the
// bid's maximum and the member's own country; null when the member's profile names no country.
import { expect } from 'chai';
import { importAnyRecord } from '../../app/features/intake.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe("a bid's cost estimate (operation 58's CostEstimate)", () => {
  let server: TestServer;
  let member: string;
  let stranger: string;
  const bid = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request('POST', '/v1/me/bids', { token, body, headers });
  const minimum = async (lotId: number) =>
    (await server.request('GET', `/v1/lots/${lotId}`, { token: await server.anonymousToken() })).body.MinimumNextBid as number;

  before(async () => {
    server = await startTestServer();
    member = await server.memberToken();
    // A member signed up through intake, with no profile: no country.
    await importAnyRecord(server.runtime.services.log, {
      kind: 'member',
      tenant: 'demo',
      memberId: 201,
      email: 'no-country@example.com',
      password: 'a long enough password 123',
      firstName: 'No',
      lastName: 'Country',
      language: 'en',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
    stranger = server.issueMemberToken('demo', 201);
    for (const token of [member, stranger]) {
      const registered = await server.request('POST', '/v1/me/registrations/10', { token });
      expect(registered.status, registered.text).to.equal(200);
    }
  });
  after(async () => server?.close());

  it("answers operation 64's estimate for the bid's maximum, the timed channel and the member's country, in the member's language", async () => {
    const maxAmount = (await minimum(2005)) + 10000;
    const placed = await bid(
      member,
      { LotId: 2005, MaxAmount: maxAmount },
      { 'Idempotency-Key': 'cost-estimate-1', 'Accept-Language': 'de' },
    );
    expect(placed.status, placed.text).to.equal(200);
    const estimate = await server.request('GET', `/v1/lots/2005/cost-estimate?amount=${maxAmount}&channel=timed&lang=de`, {
      token: member,
    });
    expect(placed.body.CostEstimate).to.deep.equal(estimate.body);
    expect(placed.body.CostEstimate).to.deep.include({ Amount: maxAmount, Country: 'NL', Channel: 'timed', VatScheme: 'margin' });
    expect(placed.body.CostEstimate.Lines[0].Label).to.equal('Zuschlag');
    // The same request again answers the first answer, its estimate with it.
    const again = await bid(
      member,
      { LotId: 2005, MaxAmount: maxAmount },
      { 'Idempotency-Key': 'cost-estimate-1', 'Accept-Language': 'de' },
    );
    expect(again.body).to.deep.equal(placed.body);
  });

  it('answers null for a member whose profile names no country, and places the bid all the same', async () => {
    const placed = await bid(stranger, { LotId: 2013, MaxAmount: (await minimum(2013)) + 500 });
    expect(placed.status, placed.text).to.equal(200);
    expect(placed.body).to.include({ Leading: true, CostEstimate: null });
  });
});
