// A member's push subscriptions over HTTP (PUSH.md operations 66–67): the browser's PushSubscription as it
// serialises, one subscription per endpoint (the same endpoint replaces and keeps its Id), 20 at most, keys that are
// a P-256 point and 16 bytes, endpoints only at the listed push services, and the endpoint and keys never in the
// back office's feed.
import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { importAnyRecord } from '../../app/features/intake.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

/** A browser's subscription: an endpoint at the spec's own push service, and fresh keys. */
export function browserSubscription(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint,
    expirationTime: null,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
  };
}

const OTHER_MEMBER = 301;

describe('push subscriptions over HTTP', function () {
  this.timeout(120_000);
  let server: TestServer;
  let member: string;
  let other: string;
  const put = (body: unknown, token = member) => server.request('PUT', '/v1/me/push-subscriptions', { token, body });
  const endpoint = () => `http://127.0.0.1:9/push/${randomUUID()}`;
  const typesSince = async (count: number) => (await server.events()).slice(count).map((e) => e.type);

  before(async () => {
    server = await startTestServer({ env: { PUSH_ENDPOINT_HOSTS: '127.0.0.1', PUSH_ALLOW_PRIVATE: 'true' } });
    member = await server.memberToken();
    await importAnyRecord(server.runtime.services.log, {
      kind: 'member',
      tenant: 'demo',
      memberId: OTHER_MEMBER,
      email: `push-${OTHER_MEMBER}@example.com`,
      password: 'a long enough password 123',
      firstName: 'Push',
      lastName: 'Other',
      language: 'sv',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
    other = server.issueMemberToken('demo', OTHER_MEMBER);
  });
  after(async () => server?.close());

  it('takes the PushSubscription JSON and answers its Id and Created; the same endpoint again keeps both, new keys replace the old', async () => {
    const browser = browserSubscription(endpoint());
    const first = await put({ ...browser, Language: 'de' });
    expect(first.status, first.text).to.equal(200);
    expect(first.body.Id).to.match(/^[0-9a-f-]{36}$/);
    expect(Date.parse(first.body.Created)).to.be.closeTo(Date.now(), 60_000);
    const count = (await server.events()).length;
    const again = await put({ ...browser, Language: 'de' });
    expect(again.body).to.deep.equal(first.body);
    expect(await typesSince(count), 'the same subscription again appends nothing').to.deep.equal([]);
    const renewed = browserSubscription(browser.endpoint);
    const replaced = await put({ ...renewed, expirationTime: Date.parse('2027-01-01T00:00:00Z') });
    expect(replaced.body).to.deep.equal(first.body);
    const added = (await server.events()).filter((e) => e.type === 'PushSubscriptionAdded' && e.data.subscriptionId === first.body.Id);
    expect(added.map((e) => e.data.p256dh)).to.deep.equal([browser.keys.p256dh, renewed.keys.p256dh]);
    expect(added.at(-1)!.data).to.include({ expirationTime: '2027-01-01T00:00:00.000Z', language: null, endpointHost: '127.0.0.1' });
  });

  it('refuses keys that are not a P-256 point and a 16-byte secret, and a language the house does not publish in', async () => {
    const browser = browserSubscription(endpoint());
    const offCurve = Buffer.from(browser.keys.p256dh, 'base64url');
    offCurve[64] ^= 1;
    const cases: Array<[unknown, string]> = [
      [{ ...browser, keys: { ...browser.keys, p256dh: offCurve.toString('base64url') } }, 'body.keys.p256dh'],
      [{ ...browser, keys: { ...browser.keys, p256dh: browser.keys.p256dh.slice(0, 43) } }, 'body.keys.p256dh'],
      [{ ...browser, keys: { ...browser.keys, p256dh: `${browser.keys.p256dh.slice(0, 86)}+` } }, 'body.keys.p256dh'],
      [{ ...browser, keys: { ...browser.keys, auth: randomBytes(15).toString('base64url') } }, 'body.keys.auth'],
      [{ ...browser, keys: { ...browser.keys, auth: randomBytes(32).toString('base64url') } }, 'body.keys.auth'],
      [{ ...browser, Language: 'fr' }, 'body.Language'],
      [{ endpoint: browser.endpoint }, 'body.keys'],
      [{ ...browser, expirationTime: 'tomorrow' }, 'body.expirationTime'],
    ];
    const count = (await server.events()).length;
    for (const [body, field] of cases) {
      const answer = await put(body);
      expectProblem(answer, 400, 'validation-failed');
      expect(
        answer.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).to.include(field);
    }
    expect(await typesSince(count)).to.deep.equal([]);
  });

  it('refuses an endpoint at a host the deployment does not push to: 400 push-endpoint-refused', async () => {
    for (const url of ['https://push.attacker.example/x', 'http://10.0.0.1/push', 'not a url', 'http://user:pw@127.0.0.1/x']) {
      const answer = await put(browserSubscription(url));
      expectProblem(answer, 400, 'push-endpoint-refused');
      expect(answer.body.errors[0].field).to.equal('body.endpoint');
    }
  });

  it('removes a subscription of the caller, 404 afterwards and for one of another member or none', async () => {
    const mine = (await put(browserSubscription(endpoint()))).body.Id;
    const theirs = (await put(browserSubscription(endpoint()), other)).body.Id;
    expectProblem(await server.request('DELETE', `/v1/me/push-subscriptions/${theirs}`, { token: member }), 404, 'not-found');
    const removed = await server.request('DELETE', `/v1/me/push-subscriptions/${mine}`, { token: member });
    expect(removed.status, removed.text).to.equal(200);
    expect(removed.body).to.deep.equal({ Id: mine });
    expectProblem(await server.request('DELETE', `/v1/me/push-subscriptions/${mine}`, { token: member }), 404, 'not-found');
    expectProblem(await server.request('DELETE', `/v1/me/push-subscriptions/${randomUUID()}`, { token: member }), 404, 'not-found');
    expectProblem(await server.request('DELETE', '/v1/me/push-subscriptions/not-a-uuid', { token: member }), 400, 'validation-failed');
    const event = (await server.events()).find((e) => e.type === 'PushSubscriptionRemoved' && e.data.subscriptionId === mine);
    expect(event!.data).to.include({ reason: 'member', status: null });
    expectProblem(
      await server.request('PUT', '/v1/me/push-subscriptions', { token: await server.anonymousToken(), body: {} }),
      401,
      'member-token-required',
    );
  });

  it("ends another member's subscription of an endpoint this member subscribes (one browser, signed in by someone else)", async () => {
    const browser = browserSubscription(endpoint());
    const theirs = (await put(browser, other)).body.Id;
    const mine = await put(browser);
    expect(mine.status, mine.text).to.equal(200);
    expect(mine.body.Id).to.not.equal(theirs);
    const event = (await server.events()).find((e) => e.type === 'PushSubscriptionRemoved' && e.data.subscriptionId === theirs);
    expect(event?.data).to.include({ memberId: OTHER_MEMBER, reason: 'moved' });
    expectProblem(await server.request('DELETE', `/v1/me/push-subscriptions/${theirs}`, { token: other }), 404, 'not-found');
  });

  it('holds 20 subscriptions per member: the 21st is 409 push-subscriptions-full, a known endpoint still replaces its own', async () => {
    const token = server.issueMemberToken('demo', OTHER_MEMBER);
    const held = (await server.events()).filter((e) => e.type.startsWith('PushSubscription') && e.data.memberId === OTHER_MEMBER);
    const live = new Set<string>();
    for (const e of held)
      e.type === 'PushSubscriptionAdded' ? live.add(e.data.subscriptionId as string) : live.delete(e.data.subscriptionId as string);
    const browsers = Array.from({ length: 20 - live.size }, () => browserSubscription(endpoint()));
    for (const browser of browsers) expect((await put(browser, token)).status).to.equal(200);
    expectProblem(await put(browserSubscription(endpoint()), token), 409, 'push-subscriptions-full');
    expect((await put({ ...browsers[0], Language: 'sv' }, token)).status).to.equal(200);
  });

  it("keeps the endpoint and keys out of the back office's feed", async () => {
    const browser = browserSubscription(endpoint());
    const { Id } = (await put(browser)).body;
    const feed = await server.request('GET', '/backoffice/v1/events?types=PushSubscriptionAdded,PushSubscriptionRemoved&limit=1000', {
      apiKey: null,
      headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys.demo}` },
    });
    expect(feed.status, feed.text).to.equal(200);
    const item = feed.body.Items.find((i: { Data: { subscriptionId: string } }) => i.Data.subscriptionId === Id);
    expect(item.Data).to.include({ memberId: 1, endpointHost: '127.0.0.1' });
    expect(item.Data).to.not.have.any.keys('endpoint', 'p256dh', 'auth');
    for (const secret of [browser.endpoint, browser.keys.p256dh, browser.keys.auth]) expect(feed.text).to.not.contain(secret);
  });
});
