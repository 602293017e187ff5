/**
 * The signing keys in the PostgreSQL shape without JWT_SECRET (docs/operations.md "Secrets"): two processes, each
 * on a data folder of its own (machines of their own), sharing PostgreSQL only. Each accepts what the other issued
 * (tokens, stream tickets, the back office's positions, the keys it mails), `npm run keys -- rotate` makes both
 * sign with a new key within seconds while the old one's tokens still work, and `-- retire` ends those on both.
 * Each run uses a schema of its own on the local PostgreSQL (POSTGRES_TEST_URL), dropped after.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { call, demoMemberToken, freePort, ready, sleep, startService, type ServiceProcess } from '../support/service-process.ts';
import { openStream } from '../support/sse.ts';

const URL = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const BACK_OFFICE_KEY = 'bo-signing-keys-spec-0123456789abcdef';

const kidOf = (token: string) => (jwt.decode(token, { complete: true })!.header as { kid?: string }).kid;

describe('Signing keys on PostgreSQL: two processes on data folders of their own, no JWT_SECRET', function () {
  this.timeout(600_000);
  const schema = `bidder_keys_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const env = { POSTGRES_URL: URL, POSTGRES_SCHEMA: schema, DEMO_BACKOFFICE_KEY: BACK_OFFICE_KEY };
  const dirs: string[] = [];
  const started: ServiceProcess[] = [];
  let first: ServiceProcess;
  let second: ServiceProcess;
  let firstDir: string;
  let secondDir: string;
  let firstKey: string;
  let rotatedKey: string;
  let oldMember: string;

  const dataDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-keys-'));
    dirs.push(dir);
    return dir;
  };

  /** `npm run keys -- ARGS` against the same schema, from a data folder of its own (an operator's machine). */
  const keys = (...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'app/cli/keys.ts', ...args], {
        env: { ...process.env, ...env, DATA_DIR: dataDir(), JWT_SECRET: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let [stdout, stderr] = ['', ''];
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  const listed = async () => JSON.parse((await keys('list', '--json')).stdout) as { keys: Array<{ id: string; state: string }> };
  const anonymous = async (proc: ServiceProcess) =>
    (await call(proc.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token;
  /** Waits until `check` holds (every process reads the ring again within seconds). */
  const within = async (ms: number, what: string, check: () => Promise<boolean>) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      expect(Date.now(), what).to.be.below(deadline);
      await sleep(250);
    }
  };

  before(async function () {
    [firstDir, secondDir] = [dataDir(), dataDir()];
    first = startService({ port: await freePort(), dataDir: firstDir, env: { ...env, JWT_SECRET: '' } });
    started.push(first);
    // The first start seeds the demo data into PostgreSQL: minutes on a busy machine.
    await ready(first, 400_000);
    second = startService({ role: 'api', port: await freePort(), dataDir: secondDir, env: { ...env, JWT_SECRET: '' } });
    started.push(second);
    await ready(second, 300_000);
  });
  after(async function () {
    for (const proc of started) proc.child.kill('SIGTERM');
    await Promise.all(started.map((proc) => proc.exited));
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('accepts on each process the tokens and stream tickets the other issued, signed with the one key in PostgreSQL', async () => {
    const ring = await listed();
    expect(ring.keys).to.have.length(1);
    firstKey = ring.keys[0].id;
    const fromFirst = await demoMemberToken(first.base);
    const fromSecond = await demoMemberToken(second.base);
    expect([kidOf(fromFirst), kidOf(fromSecond)]).to.deep.equal([firstKey, firstKey]);
    expect((await call(second.base, 'GET', '/v1/me', fromFirst)).status).to.equal(200);
    expect((await call(first.base, 'GET', '/v1/me', fromSecond)).status).to.equal(200);
    const ticket = await call(first.base, 'POST', '/v1/stream-tickets', fromFirst, { Path: '/v1/me/stream' });
    expect(ticket.status, ticket.text).to.equal(200);
    const stream = await openStream(second.base, ticket.body.Url, {});
    expect(stream.status).to.equal(200);
    stream.close();
    // No key in either data folder: nothing there another machine needs.
    for (const dir of [firstDir, secondDir]) expect(fs.existsSync(path.join(dir, 'secrets', 'keys.json'))).to.equal(false);
    oldMember = fromFirst;
  });

  it('answers the same VAPID public key on each process: derived from the anchor both read in PostgreSQL', async () => {
    const [one, two] = [
      await call(first.base, 'GET', '/v1/push/key', await anonymous(first)),
      await call(second.base, 'GET', '/v1/push/key', await anonymous(second)),
    ];
    expect(one.status, one.text).to.equal(200);
    expect(two.body).to.deep.equal(one.body);
  });

  it("reads through each process the back office's positions the other gave", async () => {
    const page = async (proc: ServiceProcess, after = '') => {
      const response = await fetch(`${proc.base}/backoffice/v1/events?limit=5&after=${after}`, {
        headers: { Authorization: `Bearer ${BACK_OFFICE_KEY}` },
      });
      expect(response.status, await response.clone().text()).to.equal(200);
      return (await response.json()) as { Items: Array<{ Position: string }>; Next: string };
    };
    const [one, two] = [await page(first), await page(second)];
    expect(one.Items.map((i) => i.Position)).to.deep.equal(two.Items.map((i) => i.Position));
    expect((await page(second, one.Next)).Items[0].Position).to.equal((await page(first, one.Next)).Items[0].Position);
  });

  it('confirms through one process a sign-up taken by the other, with the key the first one mailed', async () => {
    const email = `keys-${randomUUID().slice(0, 8)}@example.com`;
    const token = await anonymous(second);
    const signUp = await call(second.base, 'POST', '/v1/members', token, {
      Email: email,
      Password: 'a long enough password 123',
      FirstName: 'Two',
      LastName: 'Machines',
      Language: 'en',
    });
    expect(signUp.status, signUp.text).to.equal(200);
    // The `all` process sends the mail (its worker), into its own data folder's outbox.
    let key: string | undefined;
    await within(30_000, 'the confirmation mail', async () => {
      const mail = (await readOutbox(path.join(firstDir, 'outbox'))).find((m) => m.To === email);
      key = mail ? /^([A-Za-z0-9_-]{32})$/m.exec(mail.Body)?.[1] : undefined;
      return key !== undefined;
    });
    const confirmed = await call(second.base, 'POST', '/v1/members/confirmation', token, { Email: email, Key: key });
    expect(confirmed.status, confirmed.text).to.equal(200);
  });

  it('rotates: both processes sign with the new key within seconds, and what the old one signed still works on both', async () => {
    const rotated = await keys('rotate');
    expect(rotated.code, rotated.stderr).to.equal(0);
    const ring = await listed();
    rotatedKey = ring.keys.find((k) => k.state === 'signs')!.id;
    expect(rotatedKey).to.not.equal(firstKey);
    expect(ring.keys.find((k) => k.id === firstKey)!.state).to.equal('verifies');
    for (const proc of [first, second])
      await within(15_000, `${proc.role} signs with ${rotatedKey}`, async () => kidOf(await anonymous(proc)) === rotatedKey);
    for (const proc of [first, second]) expect((await call(proc.base, 'GET', '/v1/me', oldMember)).status).to.equal(200);
    const fresh = await demoMemberToken(second.base);
    expect((await call(first.base, 'GET', '/v1/me', fresh)).status).to.equal(200);
    expect(rotated.stdout + rotated.stderr).to.not.match(/secret/i);
  });

  it('retires: refused while its tokens may be valid, forced, then what it signed is 401 on both within seconds', async () => {
    const refused = await keys('retire', firstKey);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/may be valid until .* --force/);
    const forced = await keys('retire', firstKey, '--force');
    expect(forced.code, forced.stderr).to.equal(0);
    for (const proc of [first, second])
      await within(
        15_000,
        `${proc.role} refuses ${firstKey}`,
        async () => (await call(proc.base, 'GET', '/v1/me', oldMember)).status === 401,
      );
    const fresh = await demoMemberToken(first.base);
    expect(kidOf(fresh)).to.equal(rotatedKey);
    expect((await call(second.base, 'GET', '/v1/me', fresh)).status).to.equal(200);
    expect((await keys('retire', rotatedKey, '--force')).code, 'the last key that signs').to.equal(1);
  });
});
