/**
 * GET /metrics (API.md "Running"): Prometheus text, no Api-Key, requests counted by operation and status,
 * projection lag, job runs; switched off with METRICS=off. On PORT only for the operator's token (OPERATOR_TOKEN):
 * test/http/operator-access.test.ts.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.ts';

describe('GET /metrics', function () {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it("serves Prometheus metrics without an Api-Key, to the operator's token: requests by operation id and status, projection lag, jobs", async () => {
    const token = await server.anonymousToken();
    expect((await server.request('GET', '/v1/lots?AuctionId=1&PageSize=2', { token })).status).to.equal(200);
    expect((await server.request('GET', '/v1/lots/999999', { token })).status).to.equal(404);
    const response = await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain/);
    const text = response.text;
    expect(text).to.match(/bidder_http_requests_total\{operation="listLots",method="GET",status="200",role="all"\} [1-9]/);
    expect(text).to.match(/bidder_http_requests_total\{operation="getLot",method="GET",status="404",role="all"\} 1/);
    expect(text).to.match(/bidder_http_request_duration_seconds_bucket\{le="0.005",role="all",operation="listLots",method="GET"\}/);
    expect(text).to.match(/bidder_projection_lag_seconds\{projection="catalogue",role="all"\} 0/);
    expect(text).to.match(/bidder_projection_caught_up\{projection="watchlist",role="all"\} 1/);
    expect(text).to.contain('bidder_process_resident_memory_bytes');
    // Labels are bounded: no path with an id in it, and nothing of the caller. (The id is looked for as a
    // label value or in a path: sums of durations may well contain the digits.)
    expect(text).not.to.match(/["/]999999/);
    expect(text).not.to.contain(token);
  });

  it('counts job runs by job name and outcome', async () => {
    const token = await server.anonymousToken();
    const sent = await server.request('POST', '/v1/contact', {
      token,
      body: { Name: 'Ada', Email: 'ada@example.org', Subject: 'Metrics', Message: 'Counting jobs.' },
    });
    expect(sent.status, sent.text).to.be.oneOf([200, 202]);
    await server.runtime.services.jobs.whenIdle(10_000);
    const text = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
    expect(text).to.match(/bidder_jobs_total\{job="[a-z-]*contact[a-z-]*",outcome="completed",role="all"\} [1-9]/);
  });

  it('is off with METRICS=off', async () => {
    const off = await startTestServer({ env: { METRICS: 'off' } });
    try {
      expect((await off.request('GET', '/metrics', { apiKey: null, token: off.operatorToken })).status).to.equal(404);
    } finally {
      await off.close();
    }
  });
});
