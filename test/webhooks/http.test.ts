// BACKOFFICE.md "Webhooks": registration, signed deliveries in log order, retries, disable and enable, replay,
// the deliveries log, the URL rules and the cap, per tenant.
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import { RETRY_SCHEDULE_MS } from '../../commands/webhooks/index.ts';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

describe('the back office webhooks', () => {
  let server: TestServer;
  let receiver: Receiver;
  let counter = 0;
  // The service's clock: moved forward to reach retries that are minutes or hours away.
  let skew = 0;
  const now = () => new Date(Date.now() + skew);
  const call = (method: string, path: string, body?: unknown, tenant: 'demo' | 'demo2' = 'demo'): Promise<TestResponse> =>
    server.request(method, `/backoffice/v1${path}`, {
      apiKey: null,
      body,
      headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys[tenant]}` },
    });
  const appendFor = (tenant: string) =>
    importRecord(server.runtime.services.log, {
      kind: 'translations',
      tenant,
      language: 'en',
      entries: { 'spec.hook': String(++counter) },
    });
  const register = async (url: string, extra: Record<string, unknown> = {}, tenant: 'demo' | 'demo2' = 'demo') => {
    const answer = await call('POST', '/webhooks', { Url: url, Description: 'spec', ...extra }, tenant);
    expect(answer.status, answer.text).to.equal(200);
    return answer.body as { Id: number; Secret: string };
  };
  const until = async (check: () => Promise<boolean>, ms = 8000) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  before(async () => {
    server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, now });
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const hook of (await call('GET', '/webhooks')).body) await call('DELETE', `/webhooks/${hook.Id}`);
    await receiver.close();
  });
  after(async () => server?.close());

  it('registers a webhook with a whsec_ secret shown once, and delivers the events after it, signed (Standard Webhooks), in log order', async () => {
    const created = await register(receiver.url, { Types: ['InterfaceTranslationsPublished'] });
    expect(created.Secret).to.match(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    expect(Buffer.from(created.Secret.slice(6), 'base64').length).to.be.at.least(24);
    receiver.secret = created.Secret;
    expect((await call('GET', `/webhooks/${created.Id}`)).body).to.not.have.property('Secret');
    for (const hook of (await call('GET', '/webhooks')).body) expect(hook).to.not.have.property('Secret');

    for (let i = 0; i < 5; i++) {
      await appendFor('demo2');
      await appendFor('demo');
    }
    const got = await receiver.waitFor(5);
    expect(got.every((d) => d.verified)).to.equal(true);
    expect(got.map((d) => d.id)).to.deep.equal(got.map((d) => d.body.Id));
    const revisions = got.map((d) => d.body.Revision);
    expect(revisions).to.deep.equal([...revisions].sort((a, b) => a - b));
    expect(got.every((d) => d.body.Stream === 'translations-demo-en')).to.equal(true);
    expect(got[0].headers['webhook-timestamp']).to.match(/^\d{10}$/);
    expect(got[0].headers['webhook-signature']).to.match(/^v1,/);
    // The same items as the feed gives.
    const feed = await call('GET', `/events?types=InterfaceTranslationsPublished&limit=1000`);
    const items = feed.body.Items.slice(-5);
    expect(got.map((d) => d.body)).to.deep.equal(items);

    await until(async () => (await call('GET', `/webhooks/${created.Id}`)).body.LastDeliveredPosition === items[4].Position);
    const log = await call('GET', `/webhooks/${created.Id}/deliveries?pageSize=3`);
    expect(log.status).to.equal(200);
    expect(log.body.TotalCount).to.equal(5);
    expect(log.body.TotalPages).to.equal(2);
    expect(log.body.Items.map((i: { Position: string }) => i.Position)).to.deep.equal(
      items
        .slice(2)
        .map((i: { Position: string }) => i.Position)
        .reverse(),
    );
    expect(log.body.Items[0]).to.include({ Outcome: 'delivered', Attempt: 1, ResponseStatus: 200, Type: 'InterfaceTranslationsPublished' });

    // /metrics: deliveries by outcome, the webhook's lag, the feed's readers.
    const metrics = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
    expect(metrics).to.match(/^bidder_webhook_deliveries_total\{outcome="delivered",role="all"\} \d+/m);
    expect(metrics).to.match(
      new RegExp(`^bidder_webhook_delivery_lag_seconds\\{webhook="demo/${created.Id}",role="all"\\} [0-9.e-]+`, 'm'),
    );
    expect(metrics).to.match(/^bidder_feed_readers\{role="all"\} \d+/m);
  });

  it('starts no delivery to a webhook once its DELETE has answered 200, even in the middle of a run of events', async () => {
    const created = await register(receiver.url, { Types: ['InterfaceTranslationsPublished'] });
    receiver.secret = created.Secret;
    receiver.delayMs = 40;
    for (let i = 0; i < 30; i++) await appendFor('demo');
    await until(async () => receiver.arrivals.length >= 3);
    const deleted = await call('DELETE', `/webhooks/${created.Id}`);
    expect(deleted.status).to.equal(200);
    const answeredAt = Date.now();
    // Longer than the delivery worker's sync of 500 ms, and the in-flight delivery's 40 ms.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const late = receiver.arrivals.filter((at) => at > answeredAt);
    expect(late, `deliveries that arrived after the DELETE answered (${receiver.arrivals.length} in all)`).to.deep.equal([]);
    expect(receiver.arrivals.length).to.be.below(30);
  });

  it("does not deliver another tenant's events, and another tenant's webhook is 404", async () => {
    const other = await register(receiver.url, {}, 'demo2');
    receiver.secret = other.Secret;
    await appendFor('demo');
    await appendFor('demo2');
    const [first] = await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.map((d) => d.body.Stream)).to.deep.equal(['translations-demo2-en']);
    expect(first.verified).to.equal(true);
    for (const [method, path] of [
      ['GET', `/webhooks/${other.Id}`],
      ['DELETE', `/webhooks/${other.Id}`],
      ['POST', `/webhooks/${other.Id}/enable`],
      ['GET', `/webhooks/${other.Id}/deliveries`],
    ])
      expectProblem(await call(method, path), 404);
    expectProblem(await call('POST', `/webhooks/${other.Id}/replay`, { After: '' }), 404);
    expect((await call('GET', '/webhooks')).body).to.deep.equal([]);
    await call('DELETE', `/webhooks/${other.Id}`, undefined, 'demo2');
  });

  it('retries a failing event on the schedule, holding later ones back; disables after the last failure; enabling goes on from that event', async () => {
    const created = await register(receiver.url, { Types: ['InterfaceTranslationsPublished'] });
    receiver.secret = created.Secret;
    receiver.status = 503;
    await appendFor('demo');
    await appendFor('demo');
    const deliveries = async () => (await call('GET', `/webhooks/${created.Id}/deliveries?pageSize=100`)).body.Items;
    await until(async () => (await deliveries()).length === 2);
    let lines = await deliveries();
    expect(lines[0]).to.include({ Outcome: 'pending', Attempt: 2, ResponseStatus: null });
    expect(lines[1]).to.include({ Outcome: 'failed', Attempt: 1, ResponseStatus: 503 });
    // Due 5 s after the first try.
    expect(Date.parse(lines[0].At) - Date.parse(lines[1].At)).to.equal(RETRY_SCHEDULE_MS[0]);
    const failedEvent = lines[1].EventId;

    for (let attempt = 2; attempt <= 8; attempt++) {
      skew += RETRY_SCHEDULE_MS[attempt - 2];
      await until(async () => (await deliveries()).filter((l: { Outcome: string }) => l.Outcome === 'failed').length === attempt);
      lines = await deliveries();
      if (attempt < 8) {
        expect(lines[0]).to.include({ Outcome: 'pending', Attempt: attempt + 1 });
        expect(Date.parse(lines[0].At) - Date.parse(lines[1].At)).to.equal(RETRY_SCHEDULE_MS[attempt - 1]);
      }
      // Only the first event is tried: the second waits behind it.
      expect(new Set(lines.map((l: { EventId: string }) => l.EventId))).to.deep.equal(new Set([failedEvent]));
    }
    await until(async () => (await call('GET', `/webhooks/${created.Id}`)).body.Status === 'disabled');
    const disabled = (await server.events()).filter((e) => e.type === 'WebhookDisabled').at(-1)!;
    expect(disabled.data).to.include({ webhookId: created.Id, eventId: failedEvent, attempts: 8 });
    expect(receiver.received).to.have.length(0);

    receiver.status = 200;
    expect((await call('POST', `/webhooks/${created.Id}/enable`)).status).to.equal(200);
    const got = await receiver.waitFor(2);
    expect(got[0].id).to.equal(failedEvent);
    expect(got[1].body.Revision).to.equal(got[0].body.Revision + 1);
    expect((await call('GET', `/webhooks/${created.Id}`)).body.Status).to.equal('active');
  });

  it('goes on after its store failed once (the loop starts again from its cursor: the event comes again, none is lost)', async () => {
    const created = await register(receiver.url, { Types: ['InterfaceTranslationsPublished'] });
    receiver.secret = created.Secret;
    const documents = server.runtime.services.documents;
    const live = documents.live.bind(documents);
    let failures = 1;
    documents.live = () => {
      const target = live();
      return {
        ...target,
        commit: async (...args: Parameters<typeof target.commit>) => {
          // The delivery worker's own writes (their checkpoint is its fence), not the projector's.
          if (args[1].projection === 'webhook-dispatcher' && failures-- > 0) throw new Error('the store is briefly unavailable');
          return target.commit(...args);
        },
      };
    };
    try {
      await appendFor('demo');
      await appendFor('demo');
      await appendFor('demo');
      await until(async () => new Set(receiver.received.map((d) => d.id)).size === 3, 10_000);
      const revisions = [...new Map(receiver.received.map((d) => [d.id, d.body.Revision])).values()];
      expect(revisions).to.deep.equal([...revisions].sort((a, b) => a - b));
    } finally {
      documents.live = live;
    }
  });

  it('replays every event after a position, in order, then goes on', async () => {
    await appendFor('demo');
    const before = await call('GET', '/events?types=InterfaceTranslationsPublished&limit=1000');
    const start = before.body.Items.at(-1).Position as string;
    const created = await register(receiver.url, { Types: ['InterfaceTranslationsPublished'] });
    receiver.secret = created.Secret;
    await appendFor('demo');
    await appendFor('demo');
    const first = await receiver.waitFor(2);
    expect((await call('POST', `/webhooks/${created.Id}/replay`, { After: start })).status).to.equal(200);
    const again = await receiver.waitFor(4);
    expect(again.slice(2).map((d) => d.id)).to.deep.equal(first.map((d) => d.id));
    await appendFor('demo');
    const all = await receiver.waitFor(5);
    expect(all[4].body.Revision).to.equal(all[3].body.Revision + 1);
  });

  it('refuses bad URLs, unknown types, a bad replay position and the 21st webhook, changing nothing', async () => {
    const bad = ['not a url', 'ftp://example.com/x', 'http://user:pw@127.0.0.1/hook', `${receiver.url}#frag`];
    for (const url of bad) expectProblem(await call('POST', '/webhooks', { Url: url }), 400);
    expectProblem(await call('POST', '/webhooks', { Url: receiver.url, Types: ['NoSuchEvent'] }), 400);
    expectProblem(await call('POST', '/webhooks', { Url: receiver.url, Types: 'MemberSignedUp' }), 400);
    expectProblem(await call('POST', '/webhooks', {}), 400);
    expect((await call('GET', '/webhooks')).body).to.deep.equal([]);
    const created = await register(receiver.url);
    expectProblem(await call('POST', `/webhooks/${created.Id}/replay`, { After: 'nope' }), 400);
    expectProblem(await call('GET', '/webhooks/0'), 400);
    expectProblem(await call('GET', '/webhooks/999'), 404);
    // Parallel registrations up to and past the cap: exactly 20 are kept.
    const answers = await Promise.all(Array.from({ length: 25 }, () => call('POST', '/webhooks', { Url: receiver.url })));
    expect(answers.filter((a) => a.status === 200)).to.have.length(19);
    for (const refused of answers.filter((a) => a.status !== 200)) expectProblem(refused, 409);
    expect((await call('GET', '/webhooks')).body).to.have.length(20);
  });
});
