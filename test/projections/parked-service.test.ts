/**
 * How an operator finds out about parked events and jobs, on the whole service (embedded default): /readyz answers
 * 200 `degraded` with the count, /metrics has `bidder_projection_parked` and `bidder_jobs_parked`, the log has one
 * error line each, and `npm run parked` (run as a user runs it, beside the service) lists them, skips an event and
 * retries a job. The parked event is one this version cannot read: a `LotWatched` of a schema version it has no
 * upcast for, parked by each of the two that read it: the watchlist projection and the push-jobs reactor (a watched lot's
 * closing push).
 */
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.ts';
import { parseTarget } from '../../app/cli/parked.ts';
import { BadInput } from '../../src/cli/tool.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run parked -- ARGS` in a process of its own, on the service's DATA_DIR. */
function parked(dataDir: string, args: string[]): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/cli/parked.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, SEED_DEMO: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('parked events and jobs, as an operator finds them (npm run parked, /readyz, /metrics)', function () {
  // Each run of the tool starts a process that loads the service (seconds, more on a busy machine).
  this.timeout(300_000);
  let server: TestServer;
  const logLines: string[] = [];
  let bad: number;
  let jobId: string;

  before(async () => {
    server = await startTestServer({ logLines });
    const { log, jobs, projector } = server.runtime.services;
    const watched = (tenant: string, memberId: number, version: number) => ({
      type: 'LotWatched',
      version,
      data: { tenant, memberId, lotId: 1, watchType: 'watch', at: '2025-01-01T00:00:00.000Z' },
      metadata: { tenant },
    });
    bad = (await log.appendToStream('watchlist-demo-424242', [watched('demo', 424242, 2)])).position;
    const next = await log.appendToStream('watchlist-demo2-434343', [watched('demo2', 434343, 1)]);
    expect(
      await projector.waitFor(next.position, ['watchlist', 'push-jobs'], 20_000),
      'the watchlist and the push-jobs reactor went past the event they cannot read',
    ).to.equal(true);
    // A job whose one try fails: parked.
    let fixed = false;
    jobs.process('parking-test', async () => {
      if (!fixed) throw new Error('the mail server refused the template');
    });
    jobId = `parking-test-${Date.now()}`;
    await jobs.add('parking-test', {}, { jobId, attempts: 1 });
    await jobs.whenIdle(10_000);
    fixed = true;
  });
  after(async () => server?.close());

  it('/readyz answers 200 degraded with the count of what is parked, and /metrics has it per projection and per job name', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the summary is read at most once a second
    // Anyone reads that the process serves, degraded; the operator reads what is parked.
    const anyone = await server.request('GET', '/readyz', { apiKey: null });
    expect(anyone.status).to.equal(200);
    expect(anyone.body).to.deep.equal({ status: 'degraded' });
    const ready = await server.request('GET', '/readyz', { apiKey: null, token: server.operatorToken });
    expect(ready.status).to.equal(200);
    expect(ready.body).to.deep.include({ status: 'degraded', parked: 3 });
    expect(ready.body.parkedBy).to.deep.equal({
      projections: { watchlist: { parked: 1, held: 0 }, 'push-jobs': { parked: 1, held: 0 } },
      jobs: { 'parking-test': 1 },
    });
    const metrics = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
    expect(metrics).to.match(/bidder_projection_parked\{projection="watchlist",role="all"\} 1/);
    expect(metrics).to.match(/bidder_projection_parked\{projection="push-jobs",role="all"\} 1/);
    expect(metrics).to.match(/bidder_projection_parked\{projection="catalogue",role="all"\} 0/);
    expect(metrics).to.match(/bidder_jobs_parked\{queue="parking-test",role="all"\} 1/);
  });

  it('logs one error line for the parked event and one for the parked job, with where they are and the error alone', () => {
    const errors = logLines.map((line) => JSON.parse(line)).filter((line) => line.level >= 50);
    const parkedLine = 'projection parked an event it cannot apply; later events of its stream are held (npm run parked)';
    expect(errors.map((line) => line.msg)).to.deep.equal([parkedLine, parkedLine, 'job parked: its tries are spent (npm run parked)']);
    const events = errors.slice(0, 2).sort((a, b) => String(a.projection).localeCompare(String(b.projection)));
    for (const [i, projection] of ['push-jobs', 'watchlist'].entries()) {
      expect(events[i]).to.deep.include({ projection, position: bad, type: 'LotWatched', stream: 'watchlist-demo-424242' });
      expect(events[i].err).to.equal(`LotWatched version 2 at position ${bad} has no upcast to version 1`);
    }
    expect(errors[2]).to.deep.include({ jobId, name: 'parking-test', err: 'the mail server refused the template' });
  });

  it('npm run parked lists them; skip drops the event for good and retry runs the job again, beside the running service', async () => {
    const listed = await parked(server.dataDir, []);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.contain('projection watchlist: 1 parked, 0 held, 0 skipped');
    expect(listed.stdout).to.contain('projection push-jobs: 1 parked, 0 held, 0 skipped');
    expect(listed.stdout).to.match(
      new RegExp(`watchlist@${bad} {2}parked {2}LotWatched {2}stream watchlist-demo-424242 {2}house demo {2}5 tries`),
    );
    expect(listed.stdout).to.contain(`job:parking-test:${jobId}  1 tries`);

    const skipped = await parked(server.dataDir, ['skip', `watchlist@${bad}`]);
    expect(skipped.code, skipped.stderr).to.equal(0);
    expect(skipped.stdout).to.contain(`skipped watchlist@${bad} (LotWatched, stream watchlist-demo-424242)`);
    expect(skipped.stderr).to.contain('operator skipped a parked event: this projection never applies it');
    const skippedToo = await parked(server.dataDir, ['skip', `push-jobs@${bad}`]);
    expect(skippedToo.code, skippedToo.stderr).to.equal(0);
    const retried = await parked(server.dataDir, ['retry', `job:parking-test:${jobId}`]);
    expect(retried.code, retried.stderr).to.equal(0);
    expect(retried.stdout).to.contain('jobs parking-test: 1 queued again');
    await server.runtime.services.jobs.whenIdle(10_000);
    expect(await server.runtime.services.jobs.getState(jobId)).to.equal('completed');
    const left = JSON.parse((await parked(server.dataDir, ['--json'])).stdout);
    expect(left.projections).to.have.length(2);
    for (const projection of left.projections) {
      expect(projection.events, projection.name).to.have.length(1);
      expect(projection.events[0]).to.deep.include({ position: bad, state: 'skipped', type: 'LotWatched', attempts: 5 });
    }
    expect(left.jobs).to.deep.equal([]);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const ready = await server.request('GET', '/readyz', { apiKey: null, token: server.operatorToken });
    expect(ready.body).to.deep.include({ status: 'ready', parked: 0 });

    // What names an event or a job is checked before anything is opened.
    expect(parseTarget('watchlist@12')).to.deep.equal({ kind: 'event', projection: 'watchlist', position: 12 });
    expect(parseTarget('job:mail:a:b')).to.deep.equal({ kind: 'job', name: 'mail', id: 'a:b' });
    expect(() => parseTarget('nothing-here')).to.throw(BadInput, /names no parked event/);
  });
});
