/**
 * The service compiled as the image runs it (Dockerfile): `npm run build` into a folder that holds only what the
 * runtime stage copies (package.json, node_modules, dist/), then `node dist/app/main.js` started there on a fresh
 * DATA_DIR. What tsx did at a start must hold compiled: relative imports of `.ts` files, worker threads started
 * from a module's sibling, files read beside a module (the front end's page, its bundled script).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { call, freePort, ready, SERVICE_API_KEY, SERVICE_PASSWORD, type ServiceProcess } from '../support/service-process.ts';
import { runtimeStage } from './image-contents.ts';

/** Every file under `dir`, relative to it. */
const filesUnder = (dir: string): string[] =>
  (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile());

describe('the compiled service (npm run build; node dist/app/main.js, as the image runs it)', function () {
  this.timeout(240_000);
  let root: string;
  let app: string;
  let service: ServiceProcess;

  before(async function () {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-compiled-'));
    app = path.join(root, 'app');
    fs.mkdirSync(app);
    // The runtime stage's /app: package.json (ESM), the dependencies, dist/; no sources beside them.
    fs.copyFileSync('package.json', path.join(app, 'package.json'));
    fs.symlinkSync(fs.realpathSync('node_modules'), path.join(app, 'node_modules'));
    // Types are `npm run lint`'s; the build here only emits (the image's build checks them too).
    const build = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/build.ts', '--out', path.join(app, 'dist'), '--no-check'], {
      encoding: 'utf8',
    });
    expect(build.status, build.stdout + build.stderr).to.equal(0);
    const port = await freePort();
    const child = spawn(process.execPath, ['--max-old-space-size=1024', 'dist/app/main.js'], {
      cwd: app,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? root,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: path.join(root, 'data'),
        API_PROCESSES: '1',
        LOG_LEVEL: 'warn',
        DEMO_API_KEY: SERVICE_API_KEY,
        DEMO_MEMBER_PASSWORD: SERVICE_PASSWORD,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    service = { role: 'all', port, base: `http://127.0.0.1:${port}`, child, output: () => output, exited };
    await ready(service, 180_000);
  });

  after(async () => {
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('is JavaScript only, each relative import naming a .js file that is there', () => {
    const dist = path.join(app, 'dist');
    const files = filesUnder(dist);
    expect(files.filter((f) => f.endsWith('.ts'))).to.deep.equal([]);
    const missing: string[] = [];
    for (const file of files.filter((f) => f.endsWith('.js') && !/bidder-web\/(app|sw)\.js$/.test(f))) {
      const text = fs.readFileSync(path.join(dist, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from |import\()"(\.{1,2}\/[^"]+)"/g))
        if (!spec.endsWith('.js') || !fs.existsSync(path.resolve(dist, path.dirname(file), spec))) missing.push(`${file}: ${spec}`);
    }
    expect(missing).to.deep.equal([]);
  });

  it('started on a fresh DATA_DIR: seeded the demo data, and answers /healthz and /readyz', async () => {
    expect((await fetch(`${service.base}/healthz`)).status).to.equal(200);
    expect((await fetch(`${service.base}/readyz`)).status).to.equal(200);
    expect(service.output()).to.contain('listening on');
  });

  it('answers a lot search from the lot index thread (a worker thread started from compiled JavaScript)', async () => {
    const anonymous = await call(service.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' });
    expect(anonymous.status, anonymous.text).to.equal(200);
    const search = await call(service.base, 'GET', '/v1/lots/search?q=brass', anonymous.body.Token);
    expect(search.status, search.text).to.equal(200);
    expect(search.body.Items).to.be.an('array').that.is.not.empty;
  });

  it('serves what its modules read beside themselves: /docs, the demo page, its script and service worker, bundled at the build', async () => {
    const docs = await fetch(`${service.base}/docs`);
    expect(docs.status).to.equal(200);
    const page = await fetch(`${service.base}/demo/`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('app.js');
    const script = await fetch(`${service.base}/demo/app.js`);
    expect(script.status).to.equal(200);
    expect((await script.text()).length).to.be.greaterThan(1000);
    expect((await fetch(`${service.base}/demo/app.css`)).status).to.equal(200);
    const worker = await fetch(`${service.base}/demo/sw.js`);
    expect(worker.status).to.equal(200);
    expect(await worker.text()).to.contain('notificationclick');
  });

  it("is healthy by the image's own HEALTHCHECK (node's fetch), and runs the tools compiled (keys list)", () => {
    const command = /HEALTHCHECK[^\n]*?\sCMD\s+(\[.*\])$/m.exec(runtimeStage(fs.readFileSync('Dockerfile', 'utf8')).text)?.[1];
    const [program, ...args] = JSON.parse(command!) as string[];
    const check = spawnSync(program === 'node' ? process.execPath : program, args, {
      env: { PORT: String(service.port) },
      encoding: 'utf8',
    });
    expect(check.status, check.stderr).to.equal(0);
    const keys = spawnSync(process.execPath, ['dist/app/cli/keys.js', 'list', '--json'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: path.join(root, 'data') },
      encoding: 'utf8',
    });
    expect(keys.status, keys.stderr).to.equal(0);
    expect(JSON.parse(keys.stdout)).to.be.an('object');
  });
});
