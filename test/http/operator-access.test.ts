/**
 * What an anonymous caller reads on PORT (docs/operations.md "Secrets"): /healthz, and /readyz's status with the
 * reason it is not ready; where the log and each projection stand, and /metrics (which counts every house's
 * operations), only with the operator's token (OPERATOR_TOKEN) or on METRICS_PORT.
 */
import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

describe('the operator-only answers on PORT', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it('tells an anonymous /readyz its status only (and the reason when not ready): no position, role or projection', async () => {
    const anonymous = await server.request('GET', '/readyz', { apiKey: null });
    expect(anonymous.status).to.equal(200);
    expect(anonymous.body).to.deep.equal({ status: 'ready' });
    expect(anonymous.text).to.not.match(/position|projections|role|catalogue/);
  });

  it("gives /readyz's details to the operator's token", async () => {
    const operator = await server.request('GET', '/readyz', { apiKey: null, token: server.operatorToken });
    expect(operator.status).to.equal(200);
    expect(operator.body).to.include({ status: 'ready', role: 'all', engines: 'reachable' });
    expect(operator.body.projections.catalogue.position).to.be.a('number');
  });

  it("answers /metrics 401 operator-token-invalid without the operator's token, a member's token or another one", async () => {
    const member = await server.memberToken();
    for (const token of [null, member, `${server.operatorToken}-not`, server.operatorToken.slice(0, -1)]) {
      const refused = await server.request('GET', '/metrics', { apiKey: null, token });
      expectProblem(refused, 401, 'operator-token-invalid');
      expect(refused.headers.get('www-authenticate')).to.equal('Bearer');
      expect(refused.text).to.not.contain('bidder_http_requests_total');
    }
    // An Api-Key is no operator's credential either.
    expectProblem(await server.request('GET', '/metrics'), 401, 'operator-token-invalid');
    const served = await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken });
    expect(served.status).to.equal(200);
    expect(served.text).to.contain('bidder_http_requests_total');
  });

  it("answers a bearer on /readyz that is not the operator's token 401 operator-token-invalid", async () => {
    expectProblem(await server.request('GET', '/readyz', { apiKey: null, token: 'not-the-operator' }), 401, 'operator-token-invalid');
  });

  it('with no OPERATOR_TOKEN set, answers /metrics on PORT 401 saying where to read it, and /readyz its status only', async () => {
    const bare = await startTestServer({ seed: false, env: { OPERATOR_TOKEN: '' } });
    try {
      const refused = await bare.request('GET', '/metrics', { apiKey: null });
      expectProblem(refused, 401, 'operator-token-invalid');
      expect(refused.body.detail).to.contain('METRICS_PORT').and.contain('OPERATOR_TOKEN');
      expectProblem(await bare.request('GET', '/metrics', { apiKey: null, token: server.operatorToken }), 401, 'operator-token-invalid');
      expect((await bare.request('GET', '/readyz', { apiKey: null })).body).to.have.keys(['status']);
    } finally {
      await bare.close();
    }
  });
});
