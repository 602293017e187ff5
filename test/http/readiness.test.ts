// /readyz means "can serve": the stores answer and no projection is further behind the log than the bound
// (READY_MAX_LAG_SECONDS, 10 by default); the search index's projection away or behind degrades search alone. Projections a moment behind a busy log are ready; where each stands is
// in the body either way, for the operator (here on an open port: METRICS_PORT). Who else reads what: the last specs
// and test/http/operator-access.test.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { opsApp, type OpsSources } from '../../src/http/ops-routes.ts';
import { Metrics } from '../../src/http/metrics.ts';
import type { ProjectionStatus } from '../../src/projector/status.ts';
import { loadConfig } from '../../src/config.ts';

const at = (position: number, lagSeconds: number, extra: Partial<ProjectionStatus> = {}): ProjectionStatus => ({
  position,
  caughtUp: lagSeconds === 0,
  lagSeconds,
  runs: 'elsewhere',
  ...extra,
});

const OPERATOR_TOKEN = 'the-readiness-spec-operator-token-0123456789';

async function readyz(
  sources: Omit<OpsSources, 'access'> & { access?: OpsSources['access'] },
  headers: Record<string, string> = {},
  route = '/readyz',
): Promise<{ status: number; body: any; cacheControl: string | null; retryAfter: string | null }> {
  const server = http.createServer(opsApp({ access: 'open', ...sources }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${route}`, { headers });
    return {
      status: response.status,
      body: await response.json(),
      cacheControl: response.headers.get('cache-control'),
      retryAfter: response.headers.get('retry-after'),
    };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('/readyz', () => {
  it('answers ready while every projection is within the lag bound, caught up or not, and says where each stands', async () => {
    const projections = { catalogue: at(120, 0.8), watchlist: at(125, 0) };
    const answer = await readyz({ role: 'api', metrics: null, projections: async () => projections });
    expect(answer.status).to.equal(200);
    expect(answer.cacheControl).to.equal('no-store');
    expect(answer.body).to.deep.equal({ status: 'ready', role: 'api', engines: 'reachable', maxLagSeconds: 10, projections });
  });

  it('answers 503 catching-up once a projection is further behind than the bound, even one failing here', async () => {
    const behind = await readyz({ role: 'api', metrics: null, projections: async () => ({ catalogue: at(100, 10.5) }) });
    expect(behind.status).to.equal(503);
    expect(behind.body).to.include({ status: 'catching-up', reason: 'projections-behind' });
    // A loop that fails (and is retried) is shown; it is not ready once it falls behind the bound.
    const failing = { catalogue: at(100, 2, { runs: 'here', error: 'failing' }) };
    const stillServing = await readyz({ role: 'projector', metrics: null, projections: async () => failing });
    expect(stillServing.status).to.equal(200);
    expect(stillServing.body.projections.catalogue.error).to.equal('failing');
  });

  it('answers 200 degraded with the count of what is parked (events parked and held, jobs parked); behind the bound, 503 catching-up', async () => {
    const parkedBy = { projections: { watchlist: { parked: 1, held: 3 } }, jobs: { 'deliver-message': 2 } };
    const projections = { watchlist: at(125, 0) };
    const degraded = await readyz({ role: 'all', metrics: null, projections: async () => projections, parked: async () => parkedBy });
    expect(degraded.status).to.equal(200);
    expect(degraded.retryAfter).to.equal(null);
    expect(degraded.body).to.deep.equal({
      status: 'degraded',
      role: 'all',
      engines: 'reachable',
      maxLagSeconds: 10,
      parked: 6,
      parkedBy,
      projections,
    });
    const none = await readyz({ role: 'worker', metrics: null, parked: async () => ({ projections: {}, jobs: {} }) });
    expect(none.body).to.deep.include({ status: 'ready', parked: 0 });
    const behind = await readyz({
      role: 'api',
      metrics: null,
      projections: async () => ({ watchlist: at(100, 11) }),
      parked: async () => parkedBy,
    });
    expect(behind.status).to.equal(503);
    expect(behind.body).to.deep.include({ status: 'catching-up', parked: 6 });
  });

  it('stays 200 with the search index away or behind: degraded, its reason naming search (search alone answers 503)', async () => {
    const catalogue = at(125, 0);
    const away = { catalogue, 'lot-search': at(0, 0, { runs: 'elsewhere', error: 'unreachable', search: true }) };
    const down = await readyz({ role: 'api', metrics: null, projections: async () => away });
    expect(down.status).to.equal(200);
    expect(down.retryAfter).to.equal(null);
    expect(down.body).to.deep.include({ status: 'degraded', reason: 'search-unavailable', engines: 'reachable' });
    const lagging = { catalogue, 'lot-search': at(100, 40, { search: true }) };
    const behind = await readyz({ role: 'api', metrics: null, projections: async () => lagging, access: { operatorToken: null } });
    expect(behind.status).to.equal(200);
    expect(behind.body).to.deep.equal({ status: 'degraded', reason: 'search-behind' });
    // Any other projection behind the bound is still a reason not to serve.
    const both = { catalogue: at(100, 30), 'lot-search': at(100, 40, { search: true }) };
    const notReady = await readyz({ role: 'api', metrics: null, projections: async () => both });
    expect(notReady.status).to.equal(503);
    expect(notReady.body).to.include({ status: 'catching-up', reason: 'projections-behind' });
  });

  it('takes its bound from READY_MAX_LAG_SECONDS', async () => {
    expect(loadConfig({}).http.readyMaxLagSeconds).to.equal(10);
    expect(loadConfig({ READY_MAX_LAG_SECONDS: '30' }).http.readyMaxLagSeconds).to.equal(30);
    expect(() => loadConfig({ READY_MAX_LAG_SECONDS: 'soon' })).to.throw(/READY_MAX_LAG_SECONDS must be a non-negative integer/);
    const strict = await readyz({ role: 'api', metrics: null, maxLagSeconds: 0, projections: async () => ({ catalogue: at(100, 0.2) }) });
    expect(strict.status).to.equal(503);
    expect(strict.body.maxLagSeconds).to.equal(0);
  });

  it('answers 503 unavailable, engines unreachable, with Retry-After, when a store does not answer (PostgreSQL down)', async () => {
    const down = await readyz({
      role: 'worker',
      metrics: null,
      ping: async () => {
        throw new Error('SQLITE_CANTOPEN');
      },
    });
    expect(down.status).to.equal(503);
    expect(down.body).to.deep.equal({
      status: 'unavailable',
      reason: 'engines-unreachable',
      role: 'worker',
      engines: 'unreachable',
      maxLagSeconds: 10,
      projections: {},
    });
    expect(Number(down.retryAfter)).to.be.greaterThan(0);
  });

  for (const source of ['projections', 'parked', 'storage'] as const)
    it(`answers 503 engines unreachable within its bound when the ${source} read never answers, asking it once`, async () => {
      let asked = 0;
      const never = () => {
        asked += 1;
        return new Promise<never>(() => {});
      };
      const server = http.createServer(opsApp({ role: 'api', metrics: null, access: 'open', [source]: never }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
        const answers = await Promise.all([fetch(url), fetch(url)]);
        for (const answer of answers) {
          expect(answer.status).to.equal(503);
          expect(await answer.json()).to.include({ status: 'unavailable', reason: 'engines-unreachable' });
        }
        expect(asked).to.equal(1); // a read still waiting is waited on again, not asked anew
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

  describe('on PORT (a projector or worker serves these alone there)', () => {
    const behind = async () => ({ catalogue: at(100, 30) });
    const onPort = (operatorToken: string | null) => ({ operatorToken });

    it('tells an anonymous caller its status and why it is not ready, nothing else', async () => {
      const anonymous = await readyz({ role: 'projector', metrics: null, projections: behind, access: onPort(OPERATOR_TOKEN) });
      expect(anonymous.status).to.equal(503);
      expect(anonymous.body).to.deep.equal({ status: 'catching-up', reason: 'projections-behind' });
      const full = await readyz({ role: 'worker', metrics: null, storage: async () => true, access: onPort(null) });
      expect(full.body).to.deep.equal({ status: 'unavailable', reason: 'storage-full' });
      const ready = await readyz({ role: 'worker', metrics: null, access: onPort(null) });
      expect(ready).to.include({ status: 200 });
      expect(ready.body).to.deep.equal({ status: 'ready' });
    });

    it("gives the details to the bearer of the operator's token, 401 operator-token-invalid to another bearer", async () => {
      const sources = { role: 'projector', metrics: null, projections: behind, access: onPort(OPERATOR_TOKEN) };
      const operator = await readyz(sources, { Authorization: `Bearer ${OPERATOR_TOKEN}` });
      expect(operator.body).to.include({ status: 'catching-up', role: 'projector', maxLagSeconds: 10 });
      expect(operator.body.projections.catalogue.position).to.equal(100);
      for (const authorization of [`Bearer ${OPERATOR_TOKEN}x`, 'Bearer', `Basic ${OPERATOR_TOKEN}`]) {
        const refused = await readyz(sources, { Authorization: authorization });
        expect(refused.status, authorization).to.equal(401);
        expect(refused.body).to.include({ status: 401, code: 'operator-token-invalid' });
      }
      // With no OPERATOR_TOKEN set, no bearer is the operator's.
      const unset = await readyz({ ...sources, access: onPort(null) }, { Authorization: `Bearer ${OPERATOR_TOKEN}` });
      expect(unset.status).to.equal(401);
      expect(unset.body.detail).to.contain('OPERATOR_TOKEN');
    });

    it("serves /metrics to the bearer of the operator's token only; on an open port (METRICS_PORT) to anyone", async () => {
      const metrics = new Metrics({ role: 'worker' });
      const sources = { role: 'worker', metrics, access: onPort(OPERATOR_TOKEN) };
      const anonymous = await readyz(sources, {}, '/metrics');
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body).to.include({ code: 'operator-token-invalid' });
      const unset = await readyz({ ...sources, access: onPort(null) }, { Authorization: `Bearer ${OPERATOR_TOKEN}` }, '/metrics');
      expect(unset.status).to.equal(401);
      const server = http.createServer(opsApp({ ...sources }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const operator = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
        expect(operator.status).to.equal(200);
        expect(await operator.text()).to.contain('bidder_http_requests_total');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
      const open = http.createServer(opsApp({ ...sources, access: 'open' }));
      await new Promise<void>((resolve) => open.listen(0, '127.0.0.1', resolve));
      try {
        expect((await fetch(`http://127.0.0.1:${(open.address() as AddressInfo).port}/metrics`)).status).to.equal(200);
      } finally {
        await new Promise((resolve) => open.close(resolve));
      }
    });
  });
});
