// BACKOFFICE.md "Credential": back-office keys per tenant, issued and revoked by intake, as the bearer on
// /backoffice/v1 only; bidder Api-Keys and tokens never reach it, and a back-office key never reaches /v1.
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { openStream } from '../support/sse.ts';

const EVENTS = '/backoffice/v1/events';
const FEED = `${EVENTS}?limit=1`;

describe('the back office credential', () => {
  let server: TestServer;
  const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { apiKey: null, headers });
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const refused = (response: Awaited<ReturnType<typeof get>>) => {
    expectProblem(response, 401);
    expect(response.headers.get('www-authenticate')).to.equal('Bearer');
  };

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it("opens the key's own tenant's feed with the demo keys (demo and demo2), as a bearer without an Api-Key", async () => {
    const demo = await get(FEED, bearer(server.credentials.backOfficeKeys.demo));
    expect(demo.status, demo.text).to.equal(200);
    expect(demo.headers.get('cache-control')).to.equal('no-store');
    expect(demo.body.Items[0].Stream).to.match(/-demo(-|$)/);
    const demo2 = await get(FEED, bearer(server.credentials.backOfficeKeys.demo2));
    expect(demo2.status, demo2.text).to.equal(200);
    expect(demo2.body.Items[0].Stream).to.match(/-demo2(-|$)/);
  });

  it('refuses a missing, malformed or unknown key: 401 problem+json with WWW-Authenticate: Bearer', async () => {
    refused(await get(FEED));
    refused(await get(FEED, { Authorization: 'Basic dXNlcjpwYXNz' }));
    refused(await get(FEED, bearer('an-unknown-back-office-key-0123456789')));
    refused(await get(FEED, { 'Api-Key': server.credentials.backOfficeKeys.demo }));
  });

  it('never lets bidder credentials in: the Api-Key (as a header or the bearer) and bidder tokens are 401', async () => {
    const apiKey = server.credentials.apiKey;
    const anonymous = await server.anonymousToken('demo');
    const member = await server.memberToken('demo');
    refused(await get(FEED, { 'Api-Key': apiKey }));
    refused(await get(FEED, bearer(apiKey)));
    refused(await get(FEED, { 'Api-Key': apiKey, ...bearer(anonymous) }));
    refused(await get(FEED, { 'Api-Key': apiKey, ...bearer(member) }));
  });

  it('never lets a back-office key into /v1: 401, with or without an Api-Key', async () => {
    const key = server.credentials.backOfficeKeys.demo;
    expectProblem(await server.request('GET', '/v1/auctions', { apiKey: null, token: key }), 401);
    expectProblem(await server.request('GET', '/v1/auctions', { token: key }), 401);
    expectProblem(await server.request('GET', '/v1/me', { token: key }), 401);
    expectProblem(await server.request('GET', '/v1/tokens/current', { apiKey: key }), 401);
  });

  it('issues a key by intake (only its hash is stored), and refuses it as soon as the revocation returns', async () => {
    const { log, projector } = server.runtime.services;
    const key = 'issued-in-a-spec-key-0123456789abcdef';
    const issued = await importRecord(log, { kind: 'backOfficeKey', tenant: 'demo2', keyId: 'spec', name: 'Spec system', key });
    expect(issued.events.map((e) => e.type)).to.deep.equal(['BackOfficeKeyIssued']);
    const stored = JSON.stringify(await log.readStream('backofficekey-demo2-spec'));
    expect(stored).to.not.include(key);
    await projector.catchUp();
    const before = await get(FEED, bearer(key));
    expect(before.status, before.text).to.equal(200);
    expect(before.body.Items[0].Stream).to.match(/-demo2(-|$)/);

    // Issued again alike: nothing appended.
    expect(
      (await importRecord(log, { kind: 'backOfficeKey', tenant: 'demo2', keyId: 'spec', name: 'Spec system', key })).events,
    ).to.deep.equal([]);

    const revoked = await importRecord(log, { kind: 'backOfficeKeyRevoked', tenant: 'demo2', keyId: 'spec' });
    expect(revoked.events.map((e) => e.type)).to.deep.equal(['BackOfficeKeyRevoked']);
    refused(await get(FEED, bearer(key))); // before any projection has seen it
    await projector.catchUp();
    refused(await get(FEED, bearer(key)));
    // Revoking again, or an unknown key: nothing.
    expect((await importRecord(log, { kind: 'backOfficeKeyRevoked', tenant: 'demo2', keyId: 'spec' })).events).to.deep.equal([]);
    expect((await importRecord(log, { kind: 'backOfficeKeyRevoked', tenant: 'demo2', keyId: 'never-issued' })).events).to.deep.equal([]);
  });

  it('refuses the old value of a key issued again with a new one, at once', async () => {
    const { log, projector } = server.runtime.services;
    const old = 'rotated-key-old-value-0123456789abcdef';
    const fresh = 'rotated-key-new-value-0123456789abcdef';
    await importRecord(log, { kind: 'backOfficeKey', tenant: 'demo', keyId: 'rotated', name: 'Rotated', key: old });
    await projector.catchUp();
    expect((await get(FEED, bearer(old))).status).to.equal(200);
    await importRecord(log, { kind: 'backOfficeKey', tenant: 'demo', keyId: 'rotated', name: 'Rotated', key: fresh });
    refused(await get(FEED, bearer(old)));
    await projector.catchUp();
    refused(await get(FEED, bearer(old)));
    expect((await get(FEED, bearer(fresh))).status).to.equal(200);
  });

  describe('a key revoked or replaced while it reads', () => {
    /** The feed's position now, read with the key (page after page). */
    const headOf = async (key: string) => {
      let after = '';
      for (;;) {
        const page = await get(`${EVENTS}?limit=1000${after ? `&after=${after}` : ''}`, bearer(key));
        expect(page.status, page.text).to.equal(200);
        after = page.body.Next;
        if (!page.body.HasMore) return after;
      }
    };
    const within = <T>(promise: Promise<T>, ms: number, what: string) =>
      Promise.race([promise, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`${what} within ${ms} ms`)), ms))]);

    for (const [how, end] of [
      ['revoked', (log: EventLog) => importRecord(log, { kind: 'backOfficeKeyRevoked', tenant: 'demo', keyId: 'reader' })],
      [
        'issued again with another value',
        (log: EventLog) =>
          importRecord(log, {
            kind: 'backOfficeKey',
            tenant: 'demo',
            keyId: 'reader',
            name: 'Reader',
            key: `replaced-${Date.now()}-0123456789abcdef`,
          }),
      ],
    ] as const)
      it(`ends its open stream and its waiting long-poll when ${how}, before any later event reaches them`, async () => {
        const { log, projector } = server.runtime.services;
        const key = `reader-key-${Date.now()}-0123456789abcdef`;
        await importRecord(log, { kind: 'backOfficeKey', tenant: 'demo', keyId: 'reader', name: 'Reader', key });
        await projector.catchUp();
        const after = await headOf(key);
        const stream = await openStream(server.base, `${EVENTS}/stream`, { ...bearer(key), 'Last-Event-ID': after });
        expect(stream.status).to.equal(200);
        const longPoll = fetch(`${server.base}${EVENTS}?after=${after}&wait=30`, { headers: bearer(key) });
        await new Promise((resolve) => setTimeout(resolve, 200));
        await end(log);
        // An event of the tenant right after: neither reader may get it.
        await importRecord(log, { kind: 'translations', tenant: 'demo', language: 'en', entries: { 'spec.after-revocation': how } });
        const answer = await within(longPoll, 3000, 'the long-poll answered');
        expect(answer.status).to.equal(401);
        expect(answer.headers.get('content-type')).to.match(/^application\/problem\+json/);
        await within(stream.ended, 3000, 'the stream ended');
        expect(stream.messages.filter((m) => m.event)).to.deep.equal([]);
        refused(await get(FEED, bearer(key)));
      });
  });
});
