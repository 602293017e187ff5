/**
 * The typed client package (clients/typescript): its generated types are those of the current OpenAPI document, and it
 * makes a front end's first calls against a real service (anonymous token, lots, sign-in, a bid, a refused bid).
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { buildOpenApiDocument } from '../../src/http/openapi/index.ts';
import { operations } from '../../app/features/operations.ts';
import { renderClientSchema, SCHEMA_FILE } from '../../clients/typescript/scripts/render-schema.ts';
import { createBidderClient, ok, ProblemError, signIn, useAnonymousToken } from '../../clients/typescript/src/index.ts';
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
    before(async () => {
      server = await startTestServer();
    });
    after(async () => server?.close());

    it('makes the first calls of a front end: an anonymous token, lots, sign-in, a bid; a refused bid is a ProblemError', async () => {
      const client = createBidderClient({ baseUrl: server.base, apiKey: server.credentials.apiKey });
      await useAnonymousToken(client, 'demo');
      const lots = ok(await client.GET('/v1/lots', { params: { query: { AuctionId: TIMED_AUCTION, pageSize: 5 } } }));
      expect(lots.Items).to.have.length(5);
      const lot = lots.Items.find((l) => l.ReserveMet === null) ?? lots.Items[0];

      await signIn(client, server.credentials.memberEmail, TEST_PASSWORD);
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
      }
    });
  });
});
