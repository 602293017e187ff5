/**
 * `npm run rebuild -- <projection>` beside a running service on one DATA_DIR (API.md "Engines and roles"):
 * the service goes on serving the old copy, switches to the rebuilt one when it is swapped in, and no
 * request fails, waits for nothing, or misses a write it made. Also: /readyz of an idle `api` follows a
 * checkpoint that another process moved, and the embedded lot index is not rebuilt under a running service.
 */
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.ts';

function rebuild(dataDir: string, projection: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'app/cli/rebuild.ts', projection], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('rebuild while the service runs', function () {
  this.timeout(120_000);
  let server: TestServer;
  const logLines: string[] = [];

  before(async () => {
    server = await startTestServer({ logLines });
  });
  after(async () => server?.close());

  it('swaps a rebuilt watchlist in under a stream of watches, each read back at once, with no error', async () => {
    const token = await server.memberToken();
    const running = rebuild(server.dataDir, 'watchlist');
    let done = false;
    void running.then(() => (done = true));
    const slow: number[] = [];
    let lot = 200;
    // Watch lots one after another while the rebuild runs, and for a while after its swap.
    let after = 0;
    while (!done || after++ < 20) {
      lot++;
      const started = Date.now();
      const put = await server.request('PUT', `/v1/me/watchlist/${lot}`, { token, body: { Type: 'watch' } });
      expect(put.status, put.text).to.equal(200);
      if (Date.now() - started > 1000) slow.push(lot);
      const list = await server.request('GET', '/v1/me/watchlist?PageSize=100', { token });
      expect(list.status, list.text).to.equal(200);
      expect(
        list.body.Items.map((i: { Id: number }) => i.Id),
        `lot ${lot} right after its PUT`,
      ).to.include(lot);
      if (lot > 290) break;
    }
    const result = await running;
    expect(result.code, result.output).to.equal(0);
    expect(slow, 'PUTs that waited for their projection over a second').to.deep.equal([]);
    const errors = logLines.filter((l) => /"level":(50|60)/.test(l));
    expect(errors, errors.join('\n')).to.deep.equal([]);
    // Everything watched is there after the swap.
    const list = await server.request('GET', '/v1/me/watchlist?PageSize=100', { token });
    for (let l = 201; l <= lot; l++) expect(list.body.Items.map((i: { Id: number }) => i.Id)).to.include(l);
  });

  it('answers /readyz 200 on an idle service after another process moved a checkpoint', async () => {
    const result = await rebuild(server.dataDir, 'terms');
    expect(result.code, result.output).to.equal(0);
    const deadline = Date.now() + 5000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await server.request('GET', '/readyz', { apiKey: null })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).to.equal(200);
  });

  it('refuses to rebuild the embedded lot index under a running service, saying what to do', async () => {
    const result = await rebuild(server.dataDir, 'lot-search');
    expect(result.code).to.equal(2);
    expect(result.output).to.match(/kept in the memory of the running service .*stop it, rebuild, start it again/);
  });
});
