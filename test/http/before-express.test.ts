/**
 * A handler put in front of Express (src/http/before-express.ts) answers or passes a request on before Express
 * handles it; whatever it passes on, or throws on before answering, Express answers unchanged, and with `fresh`
 * it runs only once the wait is over.
 */
import { expect } from 'chai';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeExpress } from '../../src/http/before-express.ts';

async function serve(app: express.Express): Promise<{ server: Server; base: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('a handler in front of Express', () => {
  const events: string[] = [];
  let waits: Array<() => Promise<void> | null> = [];
  let server: Server;
  let base: string;

  before(async () => {
    const app = express();
    app.use((req, _res, next) => {
      events.push(`express ${req.url}`);
      next();
    });
    app.get('/v1/route', (_req, res) => {
      res.json({ by: 'express' });
    });
    const first = (req: Request, res: Response, next: NextFunction) => {
      events.push(`first ${req.url}`);
      if (req.url === '/v1/first') res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"by":"first"}');
      else if (req.url === '/v1/throws') throw new Error('the front handler failed');
      else next();
    };
    beforeExpress(app, first, () => (waits.shift() ?? (() => null))());
    ({ server, base } = await serve(app));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    events.length = 0;
    waits = [];
  });

  it('answers what it answers without Express', async () => {
    const res = await fetch(`${base}/v1/first`);
    expect(await res.json()).to.deep.equal({ by: 'first' });
    expect(events).to.deep.equal(['first /v1/first']);
  });

  it('passes the rest on to Express, which answers as without it', async () => {
    const res = await fetch(`${base}/v1/route`);
    expect(await res.json()).to.deep.equal({ by: 'express' });
    expect(events).to.deep.equal(['first /v1/route', 'express /v1/route']);
    expect((await fetch(`${base}/v1/missing`)).status).to.equal(404);
  });

  it('passes a request on to Express when it throws before answering: no crash, no lost request', async () => {
    const res = await fetch(`${base}/v1/throws`);
    expect(res.status).to.equal(404);
    expect(events).to.deep.equal(['first /v1/throws', 'express /v1/throws']);
  });

  it('runs only after the wait for fresh versions, and leaves a failed wait to Express', async () => {
    let release!: () => void;
    waits = [() => new Promise<void>((resolve) => (release = resolve))];
    const answer = fetch(`${base}/v1/first`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).to.deep.equal([]);
    release();
    expect(await (await answer).json()).to.deep.equal({ by: 'first' });
    waits = [() => Promise.reject(new Error('the checkpoints cannot be read'))];
    const failed = await fetch(`${base}/v1/first`);
    expect(failed.status).to.equal(404);
    expect(events).to.deep.equal(['first /v1/first', 'express /v1/first']);
  });
});
