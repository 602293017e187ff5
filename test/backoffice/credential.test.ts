// BACKOFFICE.md "Credential": back-office keys per tenant, issued and revoked by intake, as the bearer on
// /backoffice/v1 only; bidder Api-Keys and tokens never reach it, and a back-office key never reaches /v1.
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

const FEED = '/backoffice/v1/events?limit=1';

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
    expect(demo.body.Items[0].Stream).to.match(/-demo-/);
    const demo2 = await get(FEED, bearer(server.credentials.backOfficeKeys.demo2));
    expect(demo2.status, demo2.text).to.equal(200);
    expect(demo2.body.Items[0].Stream).to.match(/-demo2-/);
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
    expect(before.body.Items[0].Stream).to.match(/-demo2-/);

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
});
