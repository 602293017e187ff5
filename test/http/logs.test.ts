import { expect } from 'chai';
import { startTestServer, TEST_PASSWORD, type TestServer } from '../support/server.ts';

describe('the request log', () => {
  const lines: string[] = [];
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ logLines: lines });
  });
  after(async () => server?.close());

  it('has one line per request with its request id, method, path, status and duration, and never a credential', async () => {
    const anonymous = await server.anonymousToken('demo');
    const member = await server.memberToken('demo');
    await server.request('POST', '/v1/sessions', { token: anonymous, body: { Email: 'bidder@example.com', Password: 'wrong-password-1' } });
    await server.request('GET', '/v1/me', { token: member, headers: { 'X-Request-Id': 'trace-me-42' } });
    await server.request('POST', '/v1/tokens', { body: { ClientId: 'demo-web', ClientSecret: server.credentials.clientSecret } });
    await server.request('GET', `/v1/lots?q=${encodeURIComponent(TEST_PASSWORD)}`, { token: anonymous });

    const records = lines.map((l) => JSON.parse(l));
    const requests = records.filter((r) => r.msg === 'request');
    expect(requests.length).to.be.at.least(6);
    const traced = requests.find((r) => r.reqId === 'trace-me-42');
    expect(traced).to.include({ method: 'GET', path: '/v1/me', status: 200 });
    expect(traced.ms).to.be.a('number');

    const all = lines.join('\n');
    for (const secret of [
      TEST_PASSWORD,
      'wrong-password-1',
      anonymous,
      member,
      server.credentials.apiKey,
      server.credentials.clientSecret,
    ]) {
      expect(all, 'a credential leaked into the log').to.not.include(secret);
    }
  });
});
