/**
 * The secrets the service is given (JWT_SECRET, OPERATOR_TOKEN): one shorter than 32 bytes, or one printed as an
 * example in this service's own files (src/published-secrets.ts), stops the start with one line that names the
 * variable and never shows the value, exit 1 and no stack trace; unset, they are optional.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { PUBLISHED_SECRETS } from '../../src/published-secrets.ts';
import { freePort } from '../support/service-process.ts';

const GOOD = 'a-secret-of-the-settings-spec-0123456789';

describe('secret settings', function () {
  this.timeout(120_000);

  for (const name of ['JWT_SECRET', 'OPERATOR_TOKEN']) {
    it(`${name}: refuses one shorter than 32 bytes or a published example, naming it and not showing it`, () => {
      for (const value of ['short-secret', 'x'.repeat(31), 'é'.repeat(15), ...PUBLISHED_SECRETS]) {
        let error: unknown;
        try {
          loadConfig({ [name]: value });
        } catch (e) {
          error = e;
        }
        expect(error, value).to.be.instanceOf(ConfigError);
        const message = (error as Error).message;
        expect(message, value)
          .to.match(new RegExp(`^${name} `))
          .and.not.contain('\n');
        expect(message, value).to.not.contain(value);
      }
      expect(() => loadConfig({ [name]: ` ${PUBLISHED_SECRETS[0]}\n` }), 'spaces around an example').to.throw(ConfigError);
    });
  }

  it('takes 32 bytes or more, and leaves both optional', () => {
    const config = loadConfig({ JWT_SECRET: GOOD, OPERATOR_TOKEN: 'é'.repeat(16) });
    expect(config.jwtSecret).to.equal(GOOD);
    expect(config.http.operatorToken).to.equal('é'.repeat(16));
    const unset = loadConfig({ JWT_SECRET: '', OPERATOR_TOKEN: '' });
    expect(unset.jwtSecret).to.equal(null);
    expect(unset.http.operatorToken).to.equal(null);
  });

  it('stops `npm start` with one line naming the variable, exit 1, no stack trace and no value', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-secrets-'));
    const cases: Array<{ env: Record<string, string>; line: RegExp }> = [
      { env: { JWT_SECRET: 'too-short' }, line: /^fatal: JWT_SECRET must be at least 32 bytes/ },
      { env: { JWT_SECRET: 'change-me-to-a-long-random-secret' }, line: /^fatal: JWT_SECRET is an example printed in/ },
      { env: { OPERATOR_TOKEN: 'op-token' }, line: /^fatal: OPERATOR_TOKEN must be at least 32 bytes/ },
    ];
    try {
      const ends = await Promise.all(cases.map(async ({ env }) => run({ ...env, DATA_DIR: dataDir, PORT: String(await freePort()) })));
      ends.forEach(({ code, stdout, stderr }, i) => {
        expect(code, stderr).to.equal(1);
        expect(stderr.trimEnd().split('\n'), stderr).to.have.length(1);
        expect(stderr).to.match(cases[i].line);
        expect(stderr).to.not.match(/^\s+at |\.ts:\d+|Error:/m);
        for (const value of Object.values(cases[i].env)) expect(stderr + stdout).to.not.contain(value);
      });
      // Refused before anything was written.
      expect(fs.readdirSync(dataDir)).to.deep.equal([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** app/main.ts in a process of its own with `env`, to its end. */
function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { JWT_SECRET: _secret, OPERATOR_TOKEN: _token, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: { ...inherited, HOST: '127.0.0.1', API_PROCESSES: '1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
