// What is pushed (PUSH.md), through HTTP to the specs' own push service (test/support/push-service.ts), which decrypts
// every message with the subscription's private key and checks its VAPID header: `outbid`, `won` and `lost`,
// `closing` ten minutes before a lot the member watches closes, a `Type` 3 reminder; the payload as PUSH.md writes
// it, in the subscription's language or the member's; TTL, Urgency and Topic; 410 removes the subscription; 429 and
// 5xx are tried again as mail is; 403 ends the push, told on the member's stream.
import { expect } from 'chai';
import { importAnyRecord } from '../../app/features/intake.ts';
import { formatMoney } from '../../src/format.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startPushService, type ReceivedPush, type SpecPushService } from '../support/push-service.ts';
import { sleep, until } from '../support/until.ts';

const AUCTION = 900;
const TENANT = 'demo2';
const CONTACT = 'contact@demo2.example.com';

describe('pushes sent to the subscriptions', function () {
  this.timeout(120_000);
  let server: TestServer;
  let push: SpecPushService;
  let publicKey: string;
  const logLines: string[] = [];
  const tokens = new Map<number, string>();
  const intake = async (record: Record<string, unknown>) => {
    await importAnyRecord(server.runtime.services.log, record);
    await server.runtime.services.projector.catchUp();
  };
  const lot = (lotId: number, endTime: number) =>
    intake({
      kind: 'lot',
      tenant: TENANT,
      lotId,
      auctionId: AUCTION,
      lotNumber: lotId - 9000,
      categoryId: null,
      texts: { en: { title: `Push lot ${lotId}`, description: '' }, sv: { title: `Pushrop ${lotId}`, description: '' } },
      attributes: [],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: 'SEK',
      startingPrice: 1000,
      estimateLow: null,
      estimateHigh: null,
      endTime: new Date(endTime).toISOString(),
      combiId: null,
      ownerId: null,
    });
  const bid = async (memberId: number, lotId: number, maxAmount: number) => {
    const answer = await server.request('POST', '/v1/me/bids', {
      token: tokens.get(memberId),
      body: { LotId: lotId, MaxAmount: maxAmount },
    });
    expect(answer.status, answer.text).to.equal(200);
    return answer.body as { CurrentBid: number; Leading: boolean };
  };
  /** A browser of the member subscribed at the spec's push service; its id there. */
  const subscribe = async (memberId: number, extra: Record<string, unknown> = {}) => {
    const browser = push.subscribe();
    const answer = await server.request('PUT', '/v1/me/push-subscriptions', {
      token: tokens.get(memberId),
      body: { ...browser, ...extra },
    });
    expect(answer.status, answer.text).to.equal(200);
    return { endpoint: browser.endpoint, id: browser.endpoint.split('/').at(-1)!, subscriptionId: answer.body.Id as string };
  };
  const pushTo = (at: { id: string }, type: string) =>
    until(() => push.received.find((r) => r.subscription === at.id && r.payload?.type === type), `a ${type} push`);
  const metrics = async () => (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
  const expectVapid = (received: ReceivedPush) =>
    expect(received.vapid).to.include({ aud: push.origin, key: publicKey, sub: `mailto:${CONTACT}` });

  before(async () => {
    push = await startPushService();
    server = await startTestServer({
      env: { PUSH_ENDPOINT_HOSTS: '127.0.0.1', PUSH_ALLOW_PRIVATE: 'true', DELIVERY_FIRST_RETRY_MS: '300' },
      logLines,
    });
    await intake({
      kind: 'tenant',
      tenant: TENANT,
      name: 'Second Demo House',
      languages: ['en', 'sv', 'de'],
      defaultLanguage: 'en',
      currency: 'SEK',
      pageSize: 20,
      publicAccess: true,
      contactEmail: CONTACT,
      extensionWindowSeconds: 2,
    });
    const now = Date.now();
    await intake({
      kind: 'auction',
      tenant: TENANT,
      auctionId: AUCTION,
      auctionType: 1,
      texts: { en: { title: 'Pushed', description: '' } },
      startTime: new Date(now - 3600_000).toISOString(),
      endTime: new Date(now + 7200_000).toISOString(),
      currency: 'SEK',
      requiresTermsAcceptance: false,
      bidding: 'timed',
    });
    const languages: Record<number, string> = { 201: 'en', 202: 'sv', 203: 'de', 204: 'en', 205: 'en', 206: 'en', 207: 'en' };
    for (const [memberId, language] of Object.entries(languages))
      await intake({
        kind: 'member',
        tenant: TENANT,
        memberId: Number(memberId),
        email: `push-${memberId}@example.com`,
        password: 'a long enough password 123',
        firstName: 'Push',
        lastName: memberId,
        language,
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
    for (const memberId of Object.keys(languages).map(Number)) {
      tokens.set(memberId, server.issueMemberToken(TENANT, memberId));
      expect((await server.request('POST', `/v1/me/registrations/${AUCTION}`, { token: tokens.get(memberId) })).status).to.equal(200);
    }
    publicKey = (await server.request('GET', '/v1/push/key', { token: await server.anonymousToken(TENANT) })).body.PublicKey;
  });
  after(async () => {
    await server?.close();
    await push?.close();
  });
  afterEach(() => expect(push.errors, 'what the push service could not decrypt or verify').to.deep.equal([]));

  it("pushes `outbid` to the bidder who lost the lead, as PUSH.md writes it, in the member's language: TTL until the close, Urgency high, Topic per lot", async () => {
    const end = Date.now() + 3600_000;
    await lot(9101, end);
    const english = await subscribe(201);
    const swedish = await subscribe(202);
    await bid(201, 9101, 1000);
    const second = await bid(202, 9101, 3000);
    const received = await pushTo(english, 'outbid');
    const placed = (await server.events()).find((e) => e.type === 'MaxBidPlaced' && e.data.lotId === 9101 && e.data.memberId === 202)!;
    expect(received.payload).to.deep.equal({
      type: 'outbid',
      title: 'You have been outbid',
      body: `Lot 101 (Push lot 9101): the current bid is ${formatMoney(second.CurrentBid, 'SEK', 'en', 'always')}. Raise your maximum to lead again.`,
      lotId: 9101,
      auctionId: AUCTION,
      url: '#/lots/9101',
      tag: 'lot-9101',
      at: placed.data.at,
    });
    expect(received).to.include({ urgency: 'high', topic: 'outbid-9101' });
    expect(received.ttl).to.be.within(3000, 3600);
    expectVapid(received);
    await bid(203, 9101, 10_000);
    const inSwedish = await pushTo(swedish, 'outbid');
    expect(inSwedish.payload).to.include({ title: 'Du har blivit överbjuden', lotId: 9101 });
    const current = (await server.request('GET', '/v1/lots/9101', { token: await server.anonymousToken(TENANT) })).body.CurrentBid;
    expect(inSwedish.payload!.body).to.equal(
      `Rop 101 (Pushrop 9101): aktuellt bud är ${formatMoney(current, 'SEK', 'sv', 'always')}. Höj ditt maxbud för att leda igen.`,
    );
  });

  it('pushes `won` to the buyer and `lost` to the other bidders when the lot closes (TTL a day, Urgency normal)', async () => {
    await lot(9102, Date.now() + 3000);
    const loser = await subscribe(204);
    const buyer = await subscribe(203, { Language: 'en' });
    await bid(204, 9102, 1000);
    const last = await bid(203, 9102, 5000);
    const won = await pushTo(buyer, 'won');
    expect(won.payload).to.include({
      title: 'You won lot 102',
      body: `Push lot 9102: hammer price ${formatMoney(last.CurrentBid, 'SEK', 'en', 'always')}.`,
      lotId: 9102,
    });
    expect(won).to.include({ urgency: 'normal', topic: 'won-9102' });
    expect(won.ttl).to.be.within(86_000, 86_400);
    const lost = await pushTo(loser, 'lost');
    expect(lost.payload).to.include({ title: 'Lot 102 has closed', body: 'Push lot 9102: another bidder won it.', tag: 'lot-9102' });
    expectVapid(lost);
  });

  it('pushes `closing` ten minutes before a lot the member watches closes, and none for a lot watched in its last ten minutes', async () => {
    const watcher = await subscribe(205, { Language: 'de' });
    await lot(9103, Date.now() + 10 * 60_000 + 3000);
    await lot(9104, Date.now() + 5 * 60_000);
    for (const lotId of [9104, 9103])
      expect((await server.request('PUT', `/v1/me/watchlist/${lotId}`, { token: tokens.get(205) })).status).to.equal(200);
    const closing = await pushTo(watcher, 'closing');
    expect(closing.payload).to.include({ type: 'closing', title: 'Los 103 endet in 10 Minuten', lotId: 9103 });
    expect(closing.payload!.body).to.equal(`Push lot 9103: noch kein Gebot, Ausruf ${formatMoney(1000, 'SEK', 'de', 'always')}.`);
    expect(closing).to.include({ urgency: 'high', topic: 'closing-9103' });
    expect(closing.ttl).to.be.within(500, 600);
    await sleep(1000);
    expect(push.received.filter((r) => r.subscription === watcher.id).map((r) => r.payload!.lotId)).to.deep.equal([9103]);
  });

  it('pushes a Type 3 reminder to every push subscription of the member; a member with none has it skipped', async () => {
    await lot(9105, Date.now() + 3600_000);
    const phone = await subscribe(206);
    const laptop = await subscribe(206, { Language: 'sv' });
    const reminder = await server.request('POST', '/v1/me/notifications', {
      token: tokens.get(206),
      body: { GeneralId: 9105, SendTime: 120, Type: 3 },
    });
    expect(reminder.status, reminder.text).to.equal(200);
    const pushed = await pushTo(phone, 'reminder');
    expect(pushed.payload).to.include({ title: 'Lot 105 ends in 60 minutes', lotId: 9105 });
    expect(pushed.payload!.body).to.match(/^Push lot 9105\. Bidding ends \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
    expect(pushed).to.include({ urgency: 'normal', topic: 'reminder-9105' });
    expect(pushed.ttl).to.be.within(3000, 3600);
    expect((await pushTo(laptop, 'reminder')).payload).to.include({ title: 'Rop 105 avslutas om 60 minuter' });
    const none = await server.request('POST', '/v1/me/notifications', {
      token: tokens.get(207),
      body: { GeneralId: 9105, SendTime: 120, Type: 3 },
    });
    expect(none.status, none.text).to.equal(200);
    await until(
      async () => (await server.events()).find((e) => e.type === 'NotificationSkipped' && e.data.subscriptionId === none.body.Id),
      'the skipped reminder',
    ).then((e) => expect(e.data).to.include({ channel: 'push', reason: 'no-push-subscription' }));
  });

  it('pushes nothing to the browsers of a member the house removed', async () => {
    await lot(9110, Date.now() + 3600_000);
    const removed = await subscribe(207);
    await bid(207, 9110, 1000);
    await intake({ kind: 'memberRemoved', tenant: TENANT, memberId: 207, at: new Date().toISOString() });
    const kept = await subscribe(205);
    push.answer(kept.endpoint);
    await bid(205, 9110, 4000);
    await bid(201, 9110, 20_000);
    await pushTo(kept, 'outbid');
    await sleep(1000);
    expect(push.received.filter((r) => r.subscription === removed.id)).to.deep.equal([]);
  });

  it('removes a subscription the push service answers 410 for, and counts it', async () => {
    await lot(9106, Date.now() + 3600_000);
    const gone = await subscribe(204);
    push.answer(gone.endpoint, 410);
    await bid(204, 9106, 1000);
    await bid(201, 9106, 4000);
    const removed = await until(
      async () =>
        (await server.events()).find((e) => e.type === 'PushSubscriptionRemoved' && e.data.subscriptionId === gone.subscriptionId),
      'the subscription removed',
    );
    expect(removed.data).to.include({ memberId: 204, reason: 'gone', status: 410 });
    const again = await server.request('DELETE', `/v1/me/push-subscriptions/${gone.subscriptionId}`, { token: tokens.get(204) });
    expect(again.status).to.equal(404);
    expect(await metrics()).to.match(/^bidder_pushes_total\{kind="outbid",outcome="removed",role="all"\} [1-9]/m);
  });

  it('tries 429 and 5xx again, as mail is, until the push service takes it', async () => {
    await lot(9107, Date.now() + 3600_000);
    const busy = await subscribe(201);
    push.answer(busy.endpoint, 429, 503);
    await bid(201, 9107, 1000);
    await bid(204, 9107, 4000);
    await pushTo(busy, 'outbid');
    expect(push.tries.filter((t) => t.subscription === busy.id).map((t) => t.status)).to.deep.equal([429, 503, 201]);
    const text = await metrics();
    expect(text).to.match(/^bidder_pushes_total\{kind="outbid",outcome="retried",role="all"\} [2-9]/m);
    expect(text).to.match(/^bidder_pushes_total\{kind="outbid",outcome="sent",role="all"\} [1-9]/m);
  });

  it('tries a temporary failure again never past its TTL: an outbid push ends `gave-up` when its lot closes', async () => {
    const end = Date.now() + 2500;
    await lot(9109, end);
    const down = await subscribe(206);
    push.answer(down.endpoint, ...Array<number>(30).fill(503));
    await bid(206, 9109, 1000);
    await bid(201, 9109, 4000);
    const failed = await until(
      async () =>
        (await server.events()).find(
          (e) => e.type === 'MessageDeliveryFailed' && e.data.memberId === 206 && e.data.channel === 'push' && e.data.template === 'outbid',
        ),
      'the push given up',
    );
    expect(failed.data).to.include({ reason: 'gave-up' });
    const tries = push.tries.filter((t) => t.subscription === down.id && t.payload!.type === 'outbid');
    expect(tries.length).to.be.at.least(2);
    for (const t of tries) expect(t.at).to.be.below(end + 200);
  });

  it('ends a push the push service refuses (403): not tried again, logged by host only, counted, told on the member stream', async () => {
    await lot(9108, Date.now() + 3600_000);
    const refused = await subscribe(202);
    push.answer(refused.endpoint, 403);
    await bid(202, 9108, 1000);
    await bid(204, 9108, 4000);
    const failed = await until(
      async () =>
        (await server.events()).find((e) => e.type === 'MessageDeliveryFailed' && e.data.memberId === 202 && e.data.channel === 'push'),
      'the failed delivery',
    );
    expect(failed.data).to.include({ template: 'outbid', reason: 'recipient-refused' });
    await sleep(1500);
    expect(push.tries.filter((t) => t.subscription === refused.id).map((t) => t.status)).to.deep.equal([403]);
    expect(await metrics()).to.match(/^bidder_pushes_total\{kind="outbid",outcome="failed",role="all"\} [1-9]/m);
    const line = logLines.find((l) => l.includes('push refused, not tried again'));
    expect(line).to.contain(new URL(push.origin).host);
    for (const l of logLines) expect(l).to.not.contain(refused.id);
  });
});
