import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { startTestServer } from '../support/server.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { positionCodecOf } from '../../app/runtime.ts';
import { loadConfig } from '../../src/config.ts';

/**
 * `npm run project -- FILE [--from P] [--to P] [--follow]` (BACKOFFICE.md "The analysts' tools"), run as a
 * user runs it, in a process of its own, on copies of one DATA_DIR seeded with the demo data.
 */
describe('npm run project (an analyst replays the log into a projection of their own)', function () {
  this.timeout(120_000);

  const EXAMPLE = 'examples/projections/registrations-per-day.ts';
  const EXAMPLE_NAME = 'analysis-registrations-per-day';
  const EXAMPLE_COLLECTION = 'analysis_registrations_per_day';
  const COUNTED = ['AuctionRegistrationRequested', 'RegistrationApproved', 'RegistrationRejected', 'AuctionTermsAccepted'];
  let seeded: string;
  let fixtures: string;

  before(async () => {
    seeded = fs.mkdtempSync(path.join(os.tmpdir(), 'project-seeded-'));
    const server = await startTestServer({ dataDir: seeded });
    await server.close();
    fixtures = fs.mkdtempSync(path.join(os.tmpdir(), 'project-fixtures-'));
  });

  const copies: string[] = [];
  after(() => {
    for (const dir of [seeded, fixtures, ...copies]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh copy of the seeded folder. */
  const copy = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'project-data-'));
    copies.push(dir);
    fs.cpSync(seeded, dir, { recursive: true });
    return dir;
  };

  interface Run {
    code: number | null;
    stdout: string;
    stderr: string;
  }

  /** The tool in a process of its own; Ctrl-C (SIGINT) once `until` holds of its standard error, `thenMs` later. */
  function project(
    dataDir: string,
    args: string[],
    options: { npm?: boolean; until?: (stderr: string) => boolean; thenMs?: number } = {},
  ): Promise<Run> {
    const [command, argv] = options.npm
      ? ['npm', ['run', '--silent', 'project', '--', ...args]]
      : [process.execPath, ['--import', 'tsx', 'app/cli/project.ts', ...args]];
    const child = spawn(command, argv, {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => {
      stderr += c;
      if (options.until && !signalled && options.until(stderr)) {
        signalled = true;
        setTimeout(() => child.kill('SIGINT'), options.thenMs ?? 0);
      }
    });
    return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
  }

  const fixture = (name: string, source: string) => {
    const file = path.join(fixtures, name);
    fs.writeFileSync(file, source.replaceAll('REPO', process.cwd()));
    return file;
  };

  /** The documents of a collection and a projection's checkpoint, read from the embedded store directly. */
  function readModel(dataDir: string, collection: string, projection: string) {
    const db = new Database(path.join(dataDir, 'read-models.sqlite'), { readonly: true });
    try {
      const alias = db.prepare('SELECT physical FROM rm_aliases WHERE name = ?').get(collection) as { physical: string } | undefined;
      const docs = alias
        ? (
            db.prepare(`SELECT tenant, json(doc) AS doc FROM ${alias.physical} ORDER BY tenant, id`).all() as Array<{
              tenant: string;
              doc: string;
            }>
          ).map((row) => ({ tenant: row.tenant, ...JSON.parse(row.doc) }))
        : null;
      const checkpoint = (
        db.prepare('SELECT position FROM rm_checkpoints WHERE projection = ?').get(projection) as { position: number } | undefined
      )?.position;
      return { docs, checkpoint };
    } finally {
      db.close();
    }
  }

  /** The log's events, read from the embedded log directly. */
  function logEvents(dataDir: string) {
    const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true });
    try {
      return (
        db.prepare('SELECT position, type, data FROM events ORDER BY position').all() as Array<{
          position: number;
          type: string;
          data: string;
        }>
      ).map((e) => ({ position: e.position, type: e.type, data: JSON.parse(e.data) }));
    } finally {
      db.close();
    }
  }

  /** The example's numbers counted from the log itself, up to `to`: `tenant auctionId:day` → counts. */
  function countedFromLog(dataDir: string, to = Infinity) {
    const counts = new Map<string, Record<string, number>>();
    const field: Record<string, string> = {
      AuctionRegistrationRequested: 'Requested',
      RegistrationApproved: 'Approved',
      RegistrationRejected: 'Rejected',
      AuctionTermsAccepted: 'TermsAccepted',
    };
    for (const e of logEvents(dataDir)) {
      if (e.position > to || !COUNTED.includes(e.type)) continue;
      const key = `${e.data.tenant} ${e.data.auctionId}:${e.data.at.slice(0, 10)}`;
      const c = counts.get(key) ?? { Requested: 0, Approved: 0, Rejected: 0, TermsAccepted: 0 };
      c[field[e.type]] += 1;
      counts.set(key, c);
    }
    return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  const counted = (docs: Array<Record<string, any>>) =>
    Object.fromEntries(
      docs
        .map(
          (d) =>
            [
              `${d.tenant} ${d._id}`,
              { Requested: d.Requested, Approved: d.Approved, Rejected: d.Rejected, TermsAccepted: d.TermsAccepted },
            ] as const,
        )
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );

  it('replays the demo log into the example, whose numbers are those counted from the log, and stores its checkpoint at the head', async () => {
    const dir = copy();
    const head = logEvents(dir).at(-1)!.position;
    const run = await project(dir, [EXAMPLE], { npm: true });
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(summary).to.include({ projection: EXAMPLE_NAME, position: head, stopped: false });
    expect(summary.collections).to.deep.equal([EXAMPLE_COLLECTION]);
    // Not a terminal: plain progress lines with position, rate and time left.
    expect(run.stderr).to.match(new RegExp(`${EXAMPLE_NAME}: position ${head} of ${head}, \\d+ events/s, 0s left`));
    const { docs, checkpoint } = readModel(dir, EXAMPLE_COLLECTION, EXAMPLE_NAME);
    expect(checkpoint).to.equal(head);
    const expected = countedFromLog(dir);
    expect(Object.keys(expected)).to.have.length.greaterThan(0);
    expect(counted(docs!)).to.deep.equal(expected);
  });

  it('with --to gives the read model as it was at that position, and a second run without it goes on to equal one full run', async () => {
    const full = copy();
    expect((await project(full, [EXAMPLE])).code).to.equal(0);
    const whole = readModel(full, EXAMPLE_COLLECTION, EXAMPLE_NAME);

    const dir = copy();
    const first = logEvents(dir).find((e) => e.type === 'AuctionRegistrationRequested')!.position;
    const run = await project(dir, [EXAMPLE, '--to', String(first)]);
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout).position).to.equal(first);
    const then = readModel(dir, EXAMPLE_COLLECTION, EXAMPLE_NAME);
    expect(then.checkpoint).to.equal(first);
    expect(counted(then.docs!)).to.deep.equal(countedFromLog(dir, first));
    expect(then.docs).to.have.length.lessThan(whole.docs!.length);

    const again = await project(dir, [EXAMPLE]);
    expect(again.code, again.stderr).to.equal(0);
    expect(readModel(dir, EXAMPLE_COLLECTION, EXAMPLE_NAME)).to.deep.equal(whole);
  });

  it('takes an event’s Position as an export or the back office’s feed gives it (opaque) for --to and --from', async () => {
    const dir = copy();
    const requests = logEvents(dir).filter((e) => e.type === 'AuctionRegistrationRequested');
    // As the house's feed gives it: opaque, read with the key of whichever house it is.
    const codec = await positionCodecOf(loadConfig({ DATA_DIR: dir }));
    const opaque = (e: { data: { tenant: string }; position: number }) => codec.forTenant(e.data.tenant).token(e.position);
    const run = await project(dir, [EXAMPLE, '--to', opaque(requests[0])]);
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout).position).to.equal(requests[0].position);
    const fresh = copy();
    const from = await project(fresh, [EXAMPLE, '--from', opaque(requests[0])]);
    expect(from.code, from.stderr).to.equal(0);
    expect(readModel(fresh, EXAMPLE_COLLECTION, EXAMPLE_NAME).docs!.reduce((sum, d) => sum + d.Requested, 0)).to.equal(requests.length - 1);
  });

  it('starts a fresh projection at --from, leaving out the events before it', async () => {
    const dir = copy();
    const requests = logEvents(dir).filter((e) => e.type === 'AuctionRegistrationRequested');
    const from = requests[0].position;
    const run = await project(dir, [EXAMPLE, '--from', String(from)]);
    expect(run.code, run.stderr).to.equal(0);
    const { docs } = readModel(dir, EXAMPLE_COLLECTION, EXAMPLE_NAME);
    const requested = docs!.reduce((sum, d) => sum + d.Requested, 0);
    expect(requested).to.equal(requests.length - 1);
  });

  it('with --follow applies events appended meanwhile, and stops cleanly on Ctrl-C with its checkpoint stored', async () => {
    const dir = copy();
    const events = logEvents(dir);
    const head = events.at(-1)!.position;
    let appended = false;
    const appendOne = async () => {
      const log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
      await log.appendToStream('terms-demo-1', [
        {
          type: 'AuctionTermsAccepted',
          version: 1,
          data: { tenant: 'demo', memberId: 1, auctionId: 2, at: '2026-01-02T03:04:05.000Z' },
          metadata: {} as never,
        },
      ]);
      await log.close();
    };
    const run = await project(dir, [EXAMPLE, '--follow'], {
      until: (stderr) => {
        if (!appended && stderr.includes(`position ${head} of ${head}`)) {
          appended = true;
          void appendOne();
        }
        return stderr.includes(`position ${head + 1} of ${head + 1}`);
      },
    });
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout)).to.include({ position: head + 1, stopped: true });
    const { docs, checkpoint } = readModel(dir, EXAMPLE_COLLECTION, EXAMPLE_NAME);
    expect(checkpoint).to.equal(head + 1);
    expect(docs!.find((d) => d._id === '2:2026-01-02')).to.include({ tenant: 'demo', TermsAccepted: 1 });
  });

  it('stops cleanly on Ctrl-C in the middle of a replay at a page boundary, its checkpoint stored, and a second run goes on to the end', async () => {
    const dir = copy();
    // 11,000 more events, read in pages of 5,000 by a projection slow enough to be interrupted.
    const log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
    const accepted = Array.from({ length: 11_000 }, (_, i) => ({
      type: 'AuctionTermsAccepted',
      version: 1,
      data: { tenant: 'demo', memberId: 1000 + i, auctionId: 1 + (i % 3), at: '2026-01-02T03:04:05.000Z' },
      metadata: {} as never,
    }));
    await log.appendToStream('terms-demo-many', accepted);
    await log.close();
    const file = fixture(
      'slow.ts',
      `import { defineDocumentProjection } from 'REPO/src/projector/projection.ts';
import { termsEvents } from 'REPO/commands/terms/events.ts';
export const slow = defineDocumentProjection({
  name: 'analysis-slow',
  events: [termsEvents],
  collections: [{ name: 'analysis_slow' }],
  async apply(event, uow) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await uow.update('analysis_slow', event.data.tenant, String(event.data.auctionId), (doc: any) => ({ Accepted: (doc?.Accepted ?? 0) + 1 }));
  },
});
`,
    );
    const head = logEvents(dir).at(-1)!.position;
    const interrupted = await project(dir, [file], { until: (stderr) => /analysis-slow: position \d+ of/.test(stderr) });
    expect(interrupted.code, interrupted.stderr).to.equal(0);
    const stopped = JSON.parse(interrupted.stdout);
    expect(stopped.stopped).to.equal(true);
    expect(stopped.position).to.be.lessThan(head);
    expect(readModel(dir, 'analysis_slow', 'analysis-slow').checkpoint).to.equal(stopped.position);

    const resumed = await project(dir, [file]);
    expect(resumed.code, resumed.stderr).to.equal(0);
    expect(JSON.parse(resumed.stdout)).to.include({ position: head, stopped: false });
    const perAuction = new Map<number, number>();
    for (const e of logEvents(dir))
      if (e.type === 'AuctionTermsAccepted') perAuction.set(e.data.auctionId, (perAuction.get(e.data.auctionId) ?? 0) + 1);
    const { docs } = readModel(dir, 'analysis_slow', 'analysis-slow');
    expect(Object.fromEntries(docs!.map((d) => [Number(d._id), d.Accepted]))).to.deep.equal(Object.fromEntries(perAuction));
  });

  it('starts over with --reset: its collections emptied and its checkpoint back at the start, then the replay (with --to too)', async () => {
    const dir = copy();
    expect((await project(dir, [EXAMPLE])).code).to.equal(0);
    const whole = readModel(dir, EXAMPLE_COLLECTION, EXAMPLE_NAME);
    const requests = logEvents(dir).filter((e) => e.type === 'AuctionRegistrationRequested');
    const at = requests[Math.floor(requests.length / 2)].position;
    const partly = await project(dir, [EXAMPLE, '--reset', '--to', String(at)]);
    expect(partly.code, partly.stderr).to.equal(0);
    const then = readModel(dir, EXAMPLE_COLLECTION, EXAMPLE_NAME);
    expect(then.checkpoint).to.equal(at);
    expect(counted(then.docs!)).to.deep.equal(countedFromLog(dir, at));
    const again = await project(dir, [EXAMPLE, '--reset']);
    expect(again.code, again.stderr).to.equal(0);
    expect(readModel(dir, EXAMPLE_COLLECTION, EXAMPLE_NAME)).to.deep.equal(whole);
    // Without --reset, --from on a projection that has gone on says to add it.
    const refused = await project(dir, [EXAMPLE, '--from', String(at)]);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/add --reset to start it over/);
  });

  it('writes no progress line while an idle --follow has nothing to apply (a pipe gets a line every two seconds at most, as it moves)', async () => {
    const dir = copy();
    // Caught up, then idle for 4.5 s.
    const run = await project(dir, [EXAMPLE, '--follow'], { until: (stderr) => /position (\d+) of \1/.test(stderr), thenMs: 4500 });
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith(`${EXAMPLE_NAME}: position`));
    expect(new Set(lines).size, run.stderr).to.equal(lines.length);
    expect(lines.length).to.be.at.most(3);
  });

  it('stops a projection that throws with the event’s position and type, exit code 1, its checkpoint before that event', async () => {
    const dir = copy();
    const failing = logEvents(dir).find((e) => e.type === 'RegistrationApproved')!;
    const file = fixture(
      'throwing.ts',
      `import { defineDocumentProjection } from 'REPO/src/projector/projection.ts';
import { registrationsEvents } from 'REPO/commands/registrations/events.ts';
export const throwing = defineDocumentProjection({
  name: 'analysis-throwing',
  events: [registrationsEvents],
  collections: [{ name: 'analysis_throwing' }],
  async apply(event, uow) {
    if (event.type === 'RegistrationApproved') throw new Error('cannot count this');
    await uow.update('analysis_throwing', event.data.tenant, String(event.data.auctionId), () => ({ Seen: true }));
  },
});
`,
    );
    // Up to just before it, then on: the run stops at the event, the checkpoint where the first run left it.
    const before = failing.position - 1;
    expect((await project(dir, [file, '--to', String(before)])).code).to.equal(0);
    const run = await project(dir, [file]);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include(`analysis-throwing failed at position ${failing.position} on RegistrationApproved: cannot count this`);
    expect(readModel(dir, 'analysis_throwing', 'analysis-throwing').checkpoint).to.equal(before);
    expect(run.stdout).to.equal('');
  });

  describe('refuses bad input with one line on standard error, exit code 2, nothing written', () => {
    const projectionSource = (name: string, collection: string, exportName = 'analysis') =>
      `export const ${exportName} = defineDocumentProjection({
  name: '${name}',
  events: [termsEvents],
  collections: [{ name: '${collection}' }],
  async apply() {},
});
`;
    const header = `import { defineDocumentProjection } from 'REPO/src/projector/projection.ts';
import { termsEvents } from 'REPO/commands/terms/events.ts';
`;
    const cases: Array<{ title: string; args: () => string[]; says: RegExp }> = [
      { title: 'no module', args: () => [], says: /usage: npm run project -- FILE/ },
      { title: 'a missing module', args: () => ['examples/projections/no-such-file.ts'], says: /no-such-file\.ts: no such file/ },
      {
        title: 'a broken module',
        args: () => [fixture('broken.ts', `${header}export const x = ;\n`)],
        says: /broken\.ts does not type-check with the project's tsconfig \(1 error\): .*broken\.ts:3:18 Expression expected/,
      },
      {
        title: 'a misspelt field (type-checked before any event is replayed)',
        args: () => [
          fixture(
            'misspelt.ts',
            `${header}export const misspelt = defineDocumentProjection({
  name: 'analysis-misspelt',
  events: [termsEvents],
  collections: [{ name: 'analysis_misspelt' }],
  async apply(event, uow) {
    await uow.update('analysis_misspelt', event.data.tenant, String(event.data.auctionid), () => ({ Seen: true }));
  },
});
`,
          ),
        ],
        says: /misspelt\.ts does not type-check .*misspelt\.ts:8:\d+ Property 'auctionid' does not exist/,
      },
      {
        title: 'a module without a projection',
        args: () => [fixture('none.ts', 'export const answer = 42;\n')],
        says: /none\.ts exports no projection/,
      },
      {
        title: 'a module with two projections',
        args: () => [
          fixture('two.ts', header + projectionSource('analysis-a', 'analysis_a', 'a') + projectionSource('analysis-b', 'analysis_b', 'b')),
        ],
        says: /two\.ts exports 2 projections \(analysis-a, analysis-b\)/,
      },
      {
        title: 'a projection handling an unknown event type',
        args: () => [
          fixture(
            'unknown.ts',
            `export const unknown = { kind: 'documents', name: 'analysis-unknown', collections: [{ name: 'analysis_unknown' }], handles: ['LotTeleported'], async apply() {} };\n`,
          ),
        ],
        says: /handles LotTeleported, not an event type of the log/,
      },
      {
        title: 'a projection named as one of the service’s',
        args: () => [fixture('name.ts', header + projectionSource('watchlist', 'analysis_watchlist'))],
        says: /the name watchlist is one of the service's projections/,
      },
      {
        title: 'a projection writing a collection of the service’s',
        args: () => [fixture('collection.ts', header + projectionSource('analysis-members', 'members'))],
        says: /the collection members is the service's own/,
      },
      {
        title: '--from not a position',
        args: () => [EXAMPLE, '--from', 'yesterday'],
        says: /--from takes a position of the log .*"yesterday"/,
      },
      { title: '--to without a position', args: () => [EXAMPLE, '--to'], says: /--to takes a position of the log .*nothing/ },
      { title: '--to before --from', args: () => [EXAMPLE, '--from', '20', '--to', '10'], says: /--to 10 is before --from 20/ },
    ];
    for (const c of cases)
      it(c.title, async () => {
        const dir = copy();
        const before = fs.statSync(path.join(dir, 'read-models.sqlite')).size;
        const run = await project(dir, c.args());
        expect(run.code, run.stderr).to.equal(2);
        const lines = run.stderr.trim().split('\n');
        expect(lines, run.stderr).to.have.length(1);
        expect(lines[0]).to.match(c.says);
        expect(run.stdout).to.equal('');
        const db = new Database(path.join(dir, 'read-models.sqlite'), { readonly: true });
        const written = db.prepare("SELECT count(*) AS n FROM rm_checkpoints WHERE projection LIKE 'analysis%'").get() as { n: number };
        const collections = db.prepare("SELECT count(*) AS n FROM rm_aliases WHERE name LIKE 'analysis%'").get() as { n: number };
        db.close();
        expect(written.n + collections.n).to.equal(0);
        expect(fs.statSync(path.join(dir, 'read-models.sqlite')).size).to.equal(before);
      });

    it('--to before where the projection already stands', async () => {
      const dir = copy();
      expect((await project(dir, [EXAMPLE])).code).to.equal(0);
      const run = await project(dir, [EXAMPLE, '--to', '5']);
      expect(run.code).to.equal(2);
      expect(run.stderr.trim().split('\n')).to.have.length(1);
      expect(run.stderr).to.match(/already at position \d+, past --to 5/);
    });
  });
});
