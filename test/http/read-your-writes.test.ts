import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { createRuntime, type Runtime } from '../../app/runtime.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Read your writes with the projectors in another process: an API runtime without projectors (as a
 * production `api` process) answers a command only once the projector process has stored its event.
 */
describe('read your writes across processes', () => {
  let projectorSide: TestServer;
  let api: Runtime;
  let server: Server;
  let base: string;

  before(async () => {
    projectorSide = await startTestServer();
    api = await createRuntime(
      { ...loadConfig({ DATA_DIR: projectorSide.dataDir }), searchFlushIntervalMs: 0 },
      createLogger({ level: 'silent' }),
      {
        background: false,
      },
    );
    server = await new Promise((resolve) => {
      const s = api.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await api.close();
    await projectorSide.close();
  });

  it('shows a watched lot on the next GET of an API process whose projections run elsewhere', async () => {
    const headers = {
      'Api-Key': projectorSide.credentials.apiKey,
      Authorization: `Bearer ${api.services.tokens.issue('member', 'demo', '1').Token}`,
    };
    for (const lotId of [31, 32, 33]) {
      const put = await fetch(`${base}/v1/me/watchlist/${lotId}`, { method: 'PUT', headers });
      expect(put.status).to.equal(200);
      const list = await (await fetch(`${base}/v1/me/watchlist`, { headers })).json();
      expect(list.Items.map((i: { Id: number }) => i.Id)).to.include(lotId);
    }
  });
});
