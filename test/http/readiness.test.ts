// /readyz means "can serve" (issue 24): the stores answer and no projection is further behind the log than the bound
// (READY_MAX_LAG_SECONDS, 10 by default). Projections a moment behind a busy log are ready; where each stands is
// in the body either way.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { opsApp } from '../../src/http/ops-routes.ts';
import type { ProjectionStatus } from '../../src/projector/status.ts';
import { loadConfig } from '../../src/config.ts';

const at = (position: number, lagSeconds: number, extra: Partial<ProjectionStatus> = {}): ProjectionStatus => ({
  position,
  caughtUp: lagSeconds === 0,
  lagSeconds,
  runs: 'elsewhere',
  ...extra,
});

async function readyz(
  sources: Parameters<typeof opsApp>[0],
): Promise<{ status: number; body: any; cacheControl: string | null; retryAfter: string | null }> {
  const server = http.createServer(opsApp(sources));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`);
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
    expect(behind.body.status).to.equal('catching-up');
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
    expect(down.body).to.deep.equal({ status: 'unavailable', role: 'worker', engines: 'unreachable', maxLagSeconds: 10, projections: {} });
    expect(Number(down.retryAfter)).to.be.greaterThan(0);
  });
});
