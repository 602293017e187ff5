/**
 * The typed client package (clients/typescript): its generated types are those of the current OpenAPI document, and it
 * makes a front end's first calls against a real service (anonymous token, lots, sign-in, a bid, a refused bid).
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { buildOpenApiDocument } from '../../src/http/openapi/index.ts';
import { operations } from '../../app/features/operations.ts';
import { renderClientSchema, SCHEMA_FILE } from '../../clients/typescript/scripts/render-schema.ts';
import { EventSource } from 'eventsource';
import { importAnyRecord } from '../../app/features/intake.ts';
import {
  createBidderClient,
  ok,
  openAuctionStream,
  openMemberStream,
  ProblemError,
  signIn,
  useAnonymousToken,
  type AuctionStreamEvents,
  type BidderClient,
  type LiveStream,
  type MemberStreamEvents,
} from '../../clients/typescript/src/index.ts';
import { startTestServer, TEST_PASSWORD, type TestServer } from '../support/server.ts';

const TIMED_AUCTION = 10;

describe('the typed client package', function () {
  this.timeout(60_000);

  it('is generated from the current OpenAPI document (run `npm run client:generate` after a change of the API)', async () => {
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    const current = await renderClientSchema(buildOpenApiDocument(operations));
    expect(committed === current, `${SCHEMA_FILE} is not what the current document generates: run \`npm run client:generate\``).to.equal(
      true,
    );
  });

  describe('against the service', () => {
    let server: TestServer;
    let member: BidderClient;
    let lotId: number;
    before(async () => {
      server = await startTestServer();
    });
    after(async () => server?.close());

    it('makes the first calls of a front end: an anonymous token, lots, sign-in, a bid; a refused bid is a ProblemError', async () => {
      const client = createBidderClient({ baseUrl: server.base, apiKey: server.credentials.apiKey });
      await useAnonymousToken(client, 'demo');
      const lots = ok(await client.GET('/v1/lots', { params: { query: { AuctionId: TIMED_AUCTION, PageSize: 5 } } }));
      expect(lots.Items).to.have.length(5);
      const lot = lots.Items.find((l) => l.ReserveMet === null) ?? lots.Items[0];

      await signIn(client, server.credentials.memberEmail, TEST_PASSWORD);
      member = client;
      lotId = lot.Id;
      ok(await client.POST('/v1/me/registrations/{auctionId}', { params: { path: { auctionId: TIMED_AUCTION } } }));
      const placed = ok(await client.POST('/v1/me/bids', { body: { LotId: lot.Id, MaxAmount: lot.MinimumNextBid! } }));
      expect(placed).to.include({ LotId: lot.Id, Leading: true, CurrentBid: lot.StartingPrice });

      const other = lots.Items.find((l) => l.Id !== lot.Id)!;
      const refused = await client.POST('/v1/me/bids', { body: { LotId: other.Id, MaxAmount: 1 } });
      expect(() => ok(refused)).to.throw(ProblemError);
      try {
        ok(refused);
      } catch (error) {
        const problem = (error as ProblemError).problem;
        expect((error as ProblemError).status).to.equal(400);
        expect(problem.minimumNextBid).to.equal(other.MinimumNextBid);
        expect(problem).to.include({ code: 'bid-too-low', messageKey: 'message.bidTooLow' });
      }
    });

    it('opens the auction and member streams through tickets with the eventsource package: another bid, then "outbid", typed', async () => {
      const bids: Array<AuctionStreamEvents['bid']> = [];
      const outbids: Array<MemberStreamEvents['outbid']> = [];
      const opened = (open: (onOpen: () => void) => LiveStream) =>
        new Promise<LiveStream>((resolve) => {
          const stream = open(() => resolve(stream));
        });
      const auction = await opened((onOpen) =>
        openAuctionStream(member, TIMED_AUCTION, {
          on: { bid: (data) => bids.push(data) },
          onState: (s) => s === 'open' && onOpen(),
          EventSource,
        }),
      );
      const mine = await opened((onOpen) =>
        openMemberStream(member, { on: { outbid: (data) => outbids.push(data) }, onState: (s) => s === 'open' && onOpen(), EventSource }),
      );
      try {
        // Another member, registered, bids past the demo member's maximum.
        await importAnyRecord(server.runtime.services.log, {
          kind: 'member',
          tenant: 'demo',
          memberId: 201,
          email: 'other.bidder@example.com',
          password: 'a long enough password 123',
          firstName: 'Other',
          lastName: 'Bidder',
          language: 'en',
          signedUpAt: new Date().toISOString(),
          confirmed: true,
          roles: ['bidder'],
        });
        await server.runtime.services.projector.catchUp();
        const other = createBidderClient({
          baseUrl: server.base,
          apiKey: server.credentials.apiKey,
          token: server.issueMemberToken('demo', 201),
        });
        ok(await other.POST('/v1/me/registrations/{auctionId}', { params: { path: { auctionId: TIMED_AUCTION } } }));
        const lot = ok(await other.GET('/v1/lots/{id}', { params: { path: { id: lotId } } }));
        const placed = ok(await other.POST('/v1/me/bids', { body: { LotId: lotId, MaxAmount: lot.MinimumNextBid! * 2 } }));
        expect(placed.Leading).to.equal(true);
        for (let waited = 0; (bids.length === 0 || outbids.length === 0) && waited < 5000; waited += 50)
          await new Promise((r) => setTimeout(r, 50));
        expect(bids.at(-1)).to.include({ LotId: lotId, CurrentBid: placed.CurrentBid, BidCount: placed.BidCount });
        expect(outbids).to.have.length(1);
        expect(outbids[0]).to.include({ LotId: lotId, CurrentBid: placed.CurrentBid });
      } finally {
        auction.close();
        mine.close();
      }
    });
  });
});
