/**
 * The client package as an application installs it: `npm pack` of clients/typescript (its `prepare` builds JavaScript
 * and declarations), installed with openapi-fetch into a folder of its own with no TypeScript settings of this
 * repository, offline (every package from a local tarball). There a plain tsconfig type-checks an app's file whose
 * `// @ts-expect-error` lines must be errors (a query key the operation does not declare, a misspelled problem code),
 * and a plain Node.js ESM script imports the package and calls a running service.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const NPM = ['--offline', '--no-audit', '--no-fund', '--loglevel=error'];

/** An app's TypeScript: what must compile, and what must not (each `@ts-expect-error` line is an error, or tsc fails). */
const APP_TS = `import { createBidderClient, ok, ProblemError, type ProblemCode } from '@bidder-api/client';

const client = createBidderClient({ baseUrl: 'http://localhost:3000', apiKey: 'demo-key' });
const lots = ok(await client.GET('/v1/lots', { params: { query: { AuctionId: 10, Page: 1, PageSize: 20 } } }));
const id: number = lots.Items[0].Id;
const pdf = await client.GET('/v1/me/invoices/{id}/pdf', { params: { path: { id } }, parseAs: 'blob' });
const blob: Blob | undefined = pdf.data;
// @ts-expect-error Bogus is not a parameter of listLots
await client.GET('/v1/lots', { params: { query: { AuctionId: 10, Bogus: 1 } } });
// @ts-expect-error listLots declares PageSize, not pageSize
await client.GET('/v1/lots', { params: { query: { pageSize: 20 } } });
// @ts-expect-error getLot's path has id only
await client.GET('/v1/lots/{id}', { params: { path: { id, lotId: id } } });

try {
  ok(await client.POST('/v1/me/bids', { body: { LotId: id, MaxAmount: 100 } }));
} catch (error) {
  if (!(error instanceof ProblemError)) throw error;
  const code: ProblemCode = error.code;
  if (code === 'bid-too-low') console.log(error.problem.minimumNextBid, blob);
  // @ts-expect-error no such code: bid-too-low is
  if (error.code === 'bid-to-low') console.log('never');
}
`;

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [] },
  include: ['app.ts'],
};

/** A plain Node.js ESM script: the first calls of an app, its answers printed as JSON. */
const MAIN_MJS = `import { createBidderClient, ok, ProblemError, useAnonymousToken } from '@bidder-api/client';

const [baseUrl, apiKey] = process.argv.slice(2);
const client = createBidderClient({ baseUrl, apiKey });
await useAnonymousToken(client, 'demo');
const lots = ok(await client.GET('/v1/lots', { params: { query: { AuctionId: 10, Page: 2, PageSize: 3 } } }));
let refused = null;
try {
  ok(await client.GET('/v1/lots/{id}', { params: { path: { id: 999999 } } }));
} catch (error) {
  refused = { problemError: error instanceof ProblemError, status: error.status, code: error.code };
}
console.log(JSON.stringify({ items: lots.Items.length, page: lots.Page, pageSize: lots.PageSize, refused }));
`;

describe('the client package as an app installs it', function () {
  this.timeout(120_000);
  let server: TestServer;
  let app: string;
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));

  before(async () => {
    const tarballs = path.join(temp, 'tarballs');
    fs.mkdirSync(tarballs);
    // npm pack runs the package's prepare (tsc -b: a no-op when npm test's client:build made it current).
    await run('npm', ['pack', '--pack-destination', tarballs, ...NPM], { cwd: path.join(ROOT, 'clients/typescript') });
    const dependencies = ['openapi-fetch', 'openapi-typescript-helpers'].map((name) => path.join(ROOT, 'node_modules', name));
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', tarballs, ...NPM, ...dependencies], { cwd: temp });
    app = path.join(temp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
    const packed = fs.readdirSync(tarballs).map((file) => path.join(tarballs, file));
    await run('npm', ['install', '--cache', path.join(temp, 'npm-cache'), ...NPM, ...packed], { cwd: app });
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
    fs.rmSync(temp, { recursive: true, force: true });
  });

  it('ships JavaScript and declarations, with openapi-fetch as a dependency', () => {
    const installed = path.join(app, 'node_modules/@bidder-api/client');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.dependencies).to.have.property('openapi-fetch');
    expect(manifest.exports['.']).to.deep.equal({ types: './dist/index.d.ts', default: './dist/index.js' });
    const files = fs.readdirSync(path.join(installed, 'dist'));
    expect(files).to.include.members(['index.js', 'index.d.ts', 'client.js', 'schema.d.ts']);
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).to.deep.equal([]);
  });

  it('type-checks an app with a plain tsconfig: an undeclared query key or a misspelled problem code does not compile', async () => {
    fs.writeFileSync(path.join(app, 'app.ts'), APP_TS);
    fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', app]).catch((error) => error);
    expect(checked.stdout ?? '', 'tsc found errors (an unused @ts-expect-error is one)').to.equal('');
  });

  it('runs in a plain Node.js ESM script against the service: typed calls, a 404 as a ProblemError', async () => {
    fs.writeFileSync(path.join(app, 'main.mjs'), MAIN_MJS);
    const { stdout } = await run(process.execPath, ['main.mjs', server.base, server.credentials.apiKey], { cwd: app });
    expect(JSON.parse(stdout)).to.deep.equal({
      items: 3,
      page: 2,
      pageSize: 3,
      refused: { problemError: true, status: 404, code: 'not-found' },
    });
  });
});
