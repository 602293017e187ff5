import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.ts';

describe('a fresh service with the demo data', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it('answers /healthz and /readyz once its projections have caught up', async () => {
    expect((await server.request('GET', '/healthz', { apiKey: null })).status).to.equal(200);
    const ready = await server.request('GET', '/readyz', { apiKey: null });
    expect(ready.status).to.equal(200);
    expect(ready.body.status).to.equal('ready');
  });
});
