/**
 * Webhooks in the production shape on the embedded default: two `api`, one `projector` and one `worker` process
 * (the real entry point) on one DATA_DIR, and a receiver. Deliveries are the worker's: registered through one
 * `api`, fed by intake through the other, and a worker killed with SIGKILL mid-stream loses nothing: its
 * successor goes on from the first event not yet delivered (at least once: the one in flight may come twice).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort, ready, sleep, startService, type ServiceProcess } from '../support/service-process.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const KEY = 'processes-backoffice-key-0123456789abcdef';

describe('webhooks across processes: two api, a projector and a worker killed with SIGKILL', function () {
  this.timeout(180_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-webhooks-roles-'));
  const procs: ServiceProcess[] = [];
  let receiver: Receiver;

  async function start(role: string): Promise<ServiceProcess> {
    const env = { WEBHOOK_ALLOW_PRIVATE: 'true', DEMO_BACKOFFICE_KEY: KEY, READ_YOUR_WRITES_TIMEOUT_MS: '2000' };
    const proc = startService({ role, port: await freePort(), dataDir, env });
    procs.push(proc);
    await ready(proc);
    return proc;
  }
  const backOffice = (proc: ServiceProcess, method: string, url: string, body?: string, type = 'application/json') =>
    fetch(`${proc.base}/backoffice/v1${url}`, {
      method,
      headers: { Authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'Content-Type': type }) },
      body,
    });
  let line = 0;
  const intake = async (proc: ServiceProcess, count: number) => {
    const lines = Array.from({ length: count }, () =>
      JSON.stringify({ kind: 'translations', tenant: 'demo', language: 'en', entries: { 'spec.processes': String(++line) } }),
    );
    const answer = await backOffice(proc, 'POST', '/intake', lines.join('\n'), 'application/x-ndjson');
    expect(answer.status).to.equal(200);
    expect(((await answer.json()) as { Appended: number }).Appended).to.equal(count);
  };

  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    for (const proc of procs) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every event once in log order, and after a kill -9 of the worker goes on from where it stood', async () => {
    await start('projector');
    const api1 = await start('api');
    const api2 = await start('api');
    const worker = await start('worker');

    const created = await backOffice(
      api1,
      'POST',
      '/webhooks',
      JSON.stringify({ Url: receiver.url, Types: ['InterfaceTranslationsPublished'] }),
    );
    expect(created.status).to.equal(200);
    const hook = (await created.json()) as { Id: number; Secret: string };
    receiver.secret = hook.Secret;
    // Slow enough that the kill lands mid-stream.
    receiver.delayMs = 15;

    for (let i = 0; i < 4; i++) await intake(api2, 20);
    await receiver.waitFor(15, 30_000);
    worker.child.kill('SIGKILL');
    await worker.exited;
    const atKill = receiver.received.length;
    expect(atKill).to.be.below(80);
    // Appended while no worker runs: delivered once one is back.
    await intake(api2, 20);
    await sleep(500);
    expect(receiver.received.length - atKill).to.be.at.most(1);
    await start('worker');
    await receiver.waitFor(100, 60_000);
    await sleep(500);

    // Every event of the webhook's type after its registration, in log order, as the feed gives them.
    const feed: Array<{ Id: string; Position: string }> = [];
    let after = '';
    for (;;) {
      const page = await backOffice(
        api1,
        'GET',
        `/events?types=InterfaceTranslationsPublished&limit=1000${after ? `&after=${after}` : ''}`,
      );
      const body = (await page.json()) as { Items: Array<{ Id: string; Position: string }>; Next: string; HasMore: boolean };
      feed.push(...body.Items);
      after = body.Next;
      if (!body.HasMore) break;
    }
    const expected = feed.slice(-100).map((i) => i.Id);
    const firstSeen: string[] = [];
    for (const delivery of receiver.received) if (!firstSeen.includes(delivery.id)) firstSeen.push(delivery.id);
    expect(firstSeen).to.deep.equal(expected);
    // At least once: at most the delivery in flight at the kill came twice.
    expect(receiver.received.length - expected.length).to.be.at.most(1);
    expect(receiver.received.every((d) => d.verified)).to.equal(true);

    // The deliveries log and LastDeliveredPosition, read through the other api.
    const one = (await (await backOffice(api2, 'GET', `/webhooks/${hook.Id}`)).json()) as { LastDeliveredPosition: string };
    expect(one.LastDeliveredPosition).to.equal(feed.at(-1)!.Position);
    const log = (await (await backOffice(api2, 'GET', `/webhooks/${hook.Id}/deliveries?pageSize=1`)).json()) as { TotalCount: number };
    expect(log.TotalCount).to.be.within(100, 101);
  });
});
