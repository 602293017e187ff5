/**
 * On PostgreSQL, whose read models (`jsonb`) refuse U+0000 and lone surrogates: a sign-up or a profile holding one
 * used to be taken (200) into the log, and the projection that could not store it retried it for ever, so sign-up
 * stopped in every house; a search or an attribute filter holding U+0000 was a 500. Each is now a 400
 * `text-invalid` with nothing appended, and sign-up, confirmation, sign-in and the profile go on working.
 * Skipped when no PostgreSQL answers at POSTGRES_TEST_URL (default: the local one).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { importRecord } from '../../app/features/intake.ts';
import { demoRecords } from '../../app/seed/demo.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

const URL = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const PASSWORD = 'a long enough passphrase';

async function postgresAnswers(): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: URL, max: 1, connectionTimeoutMillis: 2000 });
  try {
    await pool.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await pool.end();
  }
}

describe('texts no store keeps, refused on PostgreSQL before they reach the log (the issue reproduced)', function () {
  this.timeout(180_000);
  const schema = `bidder_text_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let server: TestServer;
  let addresses = 0;
  const fromNewAddress = () => ({ 'X-Forwarded-For': `198.51.100.${++addresses}` });
  const head = () => server.runtime.services.log.headPosition();

  before(async function () {
    if (!(await postgresAnswers())) {
      console.log(`      (no PostgreSQL at ${URL}: skipped)`);
      this.skip();
    }
    server = await startTestServer({ seed: false, env: { POSTGRES_URL: URL, POSTGRES_SCHEMA: schema, TRUST_PROXY: 'true' } });
    // The demo houses and their keys only (the whole catalogue takes minutes to seed into PostgreSQL).
    for (const record of demoRecords(server.credentials, new Date())) {
      if (!['tenant', 'apiKey', 'backOfficeKey', 'application'].includes(record.kind)) break;
      await importRecord(server.runtime.services.log, record);
    }
    await server.runtime.services.projector.catchUp();
  });
  after(async () => {
    await server?.close();
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
  });

  const anonymous = (tenant = 'demo') => server.anonymousToken(tenant);
  const post = async (urlPath: string, body: unknown, tenant = 'demo') =>
    server.request('POST', urlPath, { token: await anonymous(tenant), body, headers: fromNewAddress() });

  /** Signs a new member up, confirms the address with the key mailed, and signs in: the member's token. */
  async function signUpConfirmAndSignIn(tenant: string, email: string): Promise<string> {
    const signedUp = await post('/v1/members', { Email: email, Password: PASSWORD, FirstName: 'Anna', LastName: 'Berg' }, tenant);
    expect(signedUp.status, signedUp.text).to.equal(200);
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle();
    const mail = (await readOutbox(path.join(server.dataDir, 'outbox'))).find((m) => m.To === email);
    const key = /^([A-Za-z0-9_-]{32})$/m.exec(mail?.Body ?? '')?.[1];
    expect(key, `a confirmation key mailed to ${email}`).to.be.a('string');
    const confirmed = await post('/v1/members/confirmation', { Email: email, Key: key }, tenant);
    expect(confirmed.status, confirmed.text).to.equal(200);
    const signedIn = await post('/v1/sessions', { Email: email, Password: PASSWORD }, tenant);
    expect(signedIn.status, signedIn.text).to.equal(200);
    return signedIn.body.Token as string;
  }

  const ready = async () => (await fetch(`${server.base}/readyz`)).status;

  it('POST /v1/members with FirstName "a\\u0000b": 400 text-invalid, nothing appended; sign-up goes on in every house', async () => {
    const before = await head();
    const response = await post('/v1/members', { Email: 'nul@example.com', Password: PASSWORD, FirstName: 'a\u0000b', LastName: 'Berg' });
    const problem = expectProblem(response, 400, 'text-invalid');
    expect(problem.errors).to.deep.equal([{ field: 'body.FirstName', message: 'must not hold the control character U+0000' }]);
    expect(await head()).to.equal(before);
    await signUpConfirmAndSignIn('demo', 'after-nul@example.com');
    await signUpConfirmAndSignIn('demo2', 'after-nul-2@example.com');
    expect(await ready()).to.equal(200);
  });

  it('PUT /v1/me with a lone surrogate in FirstName: 400 text-invalid, nothing appended; the profile is replaced after', async () => {
    const token = await signUpConfirmAndSignIn('demo', 'profile@example.com');
    const before = await head();
    // JSON.stringify writes a lone surrogate as the escape `\ud800`, as a client would send it.
    const response = await server.request('PUT', '/v1/me', { token, body: { FirstName: 'Anna\ud800', LastName: 'Berg' } });
    const problem = expectProblem(response, 400, 'text-invalid');
    expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.FirstName']);
    expect(await head()).to.equal(before);
    const replaced = await server.request('PUT', '/v1/me', { token, body: { FirstName: 'Anna 😀', LastName: 'Berg' } });
    expect(replaced.status, replaced.text).to.equal(200);
    const read = await server.request('GET', '/v1/me', { token });
    expect(read.body).to.include({ FirstName: 'Anna 😀', LastName: 'Berg' });
    expect(await ready()).to.equal(200);
  });

  it('GET /v1/lots?SearchTerms=%00 and MetaDataProperties[Material]=a%00b: 400 text-invalid, not 500', async () => {
    const token = await anonymous();
    const search = await server.request('GET', '/v1/lots?SearchTerms=%00', { token });
    expect(expectProblem(search, 400, 'text-invalid').errors.map((e: { field: string }) => e.field)).to.deep.equal(['query.SearchTerms']);
    const filter = await server.request('GET', '/v1/lots?MetaDataProperties[Material]=a%00b', { token });
    expect(expectProblem(filter, 400, 'text-invalid').errors.map((e: { field: string }) => e.field)).to.deep.equal([
      'query.MetaDataProperties[Material]',
    ]);
    const fine = await server.request('GET', '/v1/lots?SearchTerms=chair&MetaDataProperties[Material]=oak', { token });
    expect(fine.status, fine.text).to.equal(200);
  });
});
