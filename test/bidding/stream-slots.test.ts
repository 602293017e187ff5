// The auction stream's bounds (API.md "Timed bidding", operation 60): one client address holds at most 100 open
// streams of one house on a process, and a house at most half the process's slots; beyond, 429 with Retry-After.
import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { openStream, type OpenStream } from '../support/sse.ts';
import { StreamSlots } from '../../src/http/stream-slots.ts';
import { ServiceUnavailableError, TooManyRequestsError } from '../../src/errors.ts';

const TIMED_AUCTION = 10;

describe("the auction stream's bounds per client and per house", function () {
  this.timeout(60_000);
  let server: TestServer;
  const headers = async (tenant: string, address: string) => ({
    'Api-Key': server.credentials.apiKey,
    Authorization: `Bearer ${await server.anonymousToken(tenant)}`,
    'X-Forwarded-For': address,
  });

  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  after(async () => server?.close());

  it("opens 100 streams of a house from one client address, refuses the 101st (429, Retry-After), and not another address's nor another house's", async () => {
    const open: OpenStream[] = [];
    try {
      const mine = await headers('demo', '203.0.113.7');
      for (let i = 0; i < 100; i++) {
        const stream = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, mine);
        expect(stream.status, `stream ${i + 1}`).to.equal(200);
        open.push(stream);
      }
      const refused = await server.request('GET', `/v1/auctions/${TIMED_AUCTION}/stream`, {
        token: null,
        headers: mine,
      });
      expectProblem(refused, 429);
      expect(refused.headers.get('retry-after')).to.equal('10');
      expect(refused.body.detail).to.match(/client address holds 100 auction streams/);
      const elsewhere = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, await headers('demo', '198.51.100.20'));
      expect(elsewhere.status).to.equal(200);
      open.push(elsewhere);
      const demo2 = await server.request('GET', '/v1/auctions?pageSize=1', { token: await server.anonymousToken('demo2') });
      const otherHouse = await openStream(
        server.base,
        `/v1/auctions/${demo2.body.Items[0].Id}/stream`,
        await headers('demo2', '203.0.113.7'),
      );
      expect(otherHouse.status).to.equal(200);
      open.push(otherHouse);
      // One closed: the address may open one again.
      open.shift()!.close();
      let again: OpenStream | null = null;
      for (let i = 0; i < 50 && again?.status !== 200; i++) {
        again?.close();
        await new Promise((resolve) => setTimeout(resolve, 20));
        again = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, mine);
      }
      expect(again!.status).to.equal(200);
      open.push(again!);
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('holds a house to half the slots of a process, and the process to its bound', () => {
    const slots = new StreamSlots('auction streams', 10, 3);
    const held: Array<() => void> = [];
    for (let i = 0; i < 5; i++) held.push(slots.take('a', `10.0.0.${i}`));
    expect(() => slots.take('a', '10.0.0.99')).to.throw(TooManyRequestsError, /share/);
    for (let i = 0; i < 3; i++) held.push(slots.take('b', '10.0.0.1'));
    expect(() => slots.take('b', '10.0.0.1')).to.throw(TooManyRequestsError, /client address/);
    held.push(slots.take('b', '10.0.0.2'), slots.take('c', '10.0.0.1'));
    expect(slots.held).to.equal(10);
    expect(() => slots.take('d', '10.0.0.1')).to.throw(ServiceUnavailableError);
    held[0]();
    held[0]();
    expect(slots.held, 'a slot given back once').to.equal(9);
    expect(() => slots.take('a', '10.0.0.0')).to.not.throw();
  });
});
