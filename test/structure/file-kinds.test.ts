// Every kind of file has one name and one home (docs/architecture.md, "A feature folder"): a decider is in
// commands/<f>/decide.ts, a reactor in commands/<f>/reactors.ts, a worker in commands/<f>/<name>-worker.ts, an HTTP operation in <tree>/<f>/operations.ts, a
// job processor in commands/<f>/jobs.ts, an intake kind in commands/<f>/intake.ts, a command handler those share in
// commands/<f>/handlers.ts (running the feature's own deciders), projections read of the write side only its
// events, and no file is a catch-all that others import "whatever" from. Simple text checks over commands/,
// projections/ and queries/; the core (src/), which defines the kinds (Decider, defineReactor, jobReactor), is not
// walked. Who imports whom between the trees is .dependency-cruiser.cjs's too (test/structure/dependencies.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TREES = ['commands', 'projections', 'queries'];

/** File names that say nothing of what a file holds. */
const CATCH_ALL = ['shared.ts', 'utils.ts', 'helpers.ts', 'common.ts', 'misc.ts'];

const RULES = {
  catchAll: `no catch-all file names (${CATCH_ALL.join(', ')}): name a file after the kind it holds`,
  decider: 'a decider lives in commands/<feature>/decide.ts',
  reactor: 'a reactor lives in commands/<feature>/reactors.ts',
  operation: 'an HTTP operation (defineOperation) lives in commands/<feature>/operations.ts or queries/<feature>/operations.ts',
  job: 'a job processor (JobProcessor) lives in commands/<feature>/jobs.ts',
  intake: 'an intake kind (defineIntakeKind, IntakeKind) lives in commands/<feature>/intake.ts',
  handlers: "command handlers (handlers.ts) live in commands/<feature>/ and run the feature's own deciders (import ./decide.ts)",
  worker: 'a worker (a loop with cursors of its own) lives in commands/<feature>/<name>-worker.ts',
  projectionImports: 'projections import of commands/ only events.ts',
  dtoReads: 'an answer shape (dto.ts) reads nothing: its look-ups are in find.ts',
  eventsHome: "events.ts holds domain events and lives in commands/<feature>/ (a stream's messages are messages.ts)",
} as const;

/** What reads a read model: a tenant's store or a request's context taken in, or an accessor awaited. */
const READS = /\b(?:TenantScope|TenantContext)\b|\bawait\s+\w+\(\s*(?:ctx\.)?db\b/;

/** A decider declared as one: `export const x: Decider<...>`, `export function x(...): Decider<...>`, `satisfies Decider<`. */
const DECIDER = /^export\s+(?:async\s+)?(?:const|let|var|function)\b.*(?::|\bsatisfies)\s*Decider</;
/** A reactor made or declared: `jobReactor(`, `defineReactor(`, a function returning `: Reactor`, a `: Reactor` value. */
const REACTOR = /\bjobReactor\(|\bdefineReactor\(|\)\s*:\s*Reactor\b|:\s*Reactor\s*[=;]/;
/** An HTTP operation declared: `defineOperation(`. */
const OPERATION = /\bdefineOperation\(/;
/** A job processor made or declared: a function returning `: JobProcessor`, a `Record<string, JobProcessor>` of them. */
const JOB_PROCESSOR = /\)\s*:\s*(?:JobProcessor\b|Record<string,\s*JobProcessor>)|:\s*JobProcessor\s*[=;]/;
/** An intake kind made or declared: `defineIntakeKind(`, `: IntakeKind`, `IntakeKind[]`. */
const INTAKE_KIND = /\bdefineIntakeKind\(|:\s*IntakeKind\b|\bIntakeKind\[\]/;
/** A worker made or declared: a class implementing FeatureWorker, a function returning `: FeatureWorker` or a list of them. */
const WORKER = /\bimplements\s+FeatureWorker\b|\)\s*:\s*FeatureWorker\b/;
/** The module specifiers a file imports or re-exports (static and dynamic). */
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

const isDecide = (file: string) => /^commands\/[^/]+\/decide\.ts$/.test(file);
const isReactors = (file: string) => /^commands\/[^/]+\/reactors\.ts$/.test(file);
const isOperations = (file: string) => /^(?:commands|queries)\/[^/]+\/operations\.ts$/.test(file);
const isJobs = (file: string) => /^commands\/[^/]+\/jobs\.ts$/.test(file);
const isIntake = (file: string) => /^commands\/[^/]+\/intake\.ts$/.test(file);
const isWorker = (file: string) => /^commands\/[^/]+\/[a-z0-9-]+-worker\.ts$/.test(file);

/** Every .ts file under a tree, relative to the repository, with `/` separators. */
function walk(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return walk(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** The code's lines without its comments (block comments blanked, whole-line `//` comments emptied): prose does not count. */
const codeLines = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => (line.trim().startsWith('//') ? '' : line));

/** What a file (its path in the repository and its text) breaks, each as `file[:line]: rule (what)`. */
function fileKindViolations(file: string, text: string): string[] {
  const found: string[] = [];
  if (CATCH_ALL.includes(path.posix.basename(file))) found.push(`${file}: ${RULES.catchAll}`);
  const lines = codeLines(text);
  lines.forEach((line, i) => {
    if (!isDecide(file) && DECIDER.test(line)) found.push(`${file}:${i + 1}: ${RULES.decider} (${line.trim()})`);
    if (!isReactors(file) && REACTOR.test(line)) found.push(`${file}:${i + 1}: ${RULES.reactor} (${line.trim()})`);
    if (!isOperations(file) && OPERATION.test(line)) found.push(`${file}:${i + 1}: ${RULES.operation} (${line.trim()})`);
    if (!isJobs(file) && JOB_PROCESSOR.test(line)) found.push(`${file}:${i + 1}: ${RULES.job} (${line.trim()})`);
    if (!isIntake(file) && INTAKE_KIND.test(line)) found.push(`${file}:${i + 1}: ${RULES.intake} (${line.trim()})`);
    if (!isWorker(file) && WORKER.test(line)) found.push(`${file}:${i + 1}: ${RULES.worker} (${line.trim()})`);
  });
  if (path.posix.basename(file) === 'handlers.ts') {
    const runsOwnDeciders = [...lines.join('\n').matchAll(SPECIFIERS)].some(([, specifier]) => specifier === './decide.ts');
    if (!/^commands\/[^/]+\/handlers\.ts$/.test(file) || !runsOwnDeciders) found.push(`${file}: ${RULES.handlers}`);
  }
  if (path.posix.basename(file) === 'dto.ts')
    lines.forEach((line, i) => {
      if (READS.test(line)) found.push(`${file}:${i + 1}: ${RULES.dtoReads} (${line.trim()})`);
    });
  if (path.posix.basename(file) === 'events.ts' && !file.startsWith('commands/')) found.push(`${file}: ${RULES.eventsHome}`);
  if (file.startsWith('projections/'))
    for (const [, specifier] of lines.join('\n').matchAll(SPECIFIERS)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      if (target.startsWith('commands/') && path.posix.basename(target) !== 'events.ts')
        found.push(`${file}: ${RULES.projectionImports} (imports ${target})`);
    }
  return found;
}

describe('file kinds: one name and one home for each kind of file', () => {
  const files = TREES.flatMap(walk);
  const violations = files.flatMap((file) => fileKindViolations(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
  const of = (rule: string) => violations.filter((v) => v.includes(rule));
  const listed = (found: string[]) => `\n  ${found.join('\n  ')}\n`;

  it('reads the trees', () => {
    expect(files.length).to.be.greaterThan(150);
    expect(files).to.include.members(['commands/members/decide.ts', 'commands/members/reactors.ts', 'projections/members/projection.ts']);
  });

  it('has no file named shared.ts, utils.ts, helpers.ts, common.ts or misc.ts', () => {
    expect(of(RULES.catchAll), listed(of(RULES.catchAll))).to.deep.equal([]);
  });

  it('declares deciders only in commands/<feature>/decide.ts', () => {
    expect(of(RULES.decider), listed(of(RULES.decider))).to.deep.equal([]);
  });

  it('makes reactors only in commands/<feature>/reactors.ts (registered by <feature>Commands)', () => {
    expect(of(RULES.reactor), listed(of(RULES.reactor))).to.deep.equal([]);
  });

  it('declares HTTP operations only in operations.ts, job processors only in jobs.ts, intake kinds only in intake.ts', () => {
    expect(of(RULES.operation), listed(of(RULES.operation))).to.deep.equal([]);
    expect(of(RULES.job), listed(of(RULES.job))).to.deep.equal([]);
    expect(of(RULES.intake), listed(of(RULES.intake))).to.deep.equal([]);
  });

  it("keeps command handlers (handlers.ts) in commands/<feature>/, running the feature's own deciders", () => {
    expect(of(RULES.handlers), listed(of(RULES.handlers))).to.deep.equal([]);
    expect(files).to.include.members(['commands/bidding/handlers.ts', 'commands/members/handlers.ts']);
  });

  it('makes workers only in commands/<feature>/<name>-worker.ts (registered by <feature>Commands)', () => {
    expect(of(RULES.worker), listed(of(RULES.worker))).to.deep.equal([]);
  });

  it('imports nothing of commands/ into projections/ but events.ts: no job names, deciders or rules', () => {
    expect(of(RULES.projectionImports), listed(of(RULES.projectionImports))).to.deep.equal([]);
  });

  it('keeps answer shapes (dto.ts) free of reads, and events.ts for domain events in commands/', () => {
    expect(of(RULES.dtoReads), listed(of(RULES.dtoReads))).to.deep.equal([]);
    expect(of(RULES.eventsHome), listed(of(RULES.eventsHome))).to.deep.equal([]);
  });

  it('catches each kind of file out of its home (the checks are not blind)', () => {
    const check = (file: string, text: string) => fileKindViolations(file, text);
    expect(check('commands/x/shared.ts', 'export const a = 1;\n')).to.deep.equal([`commands/x/shared.ts: ${RULES.catchAll}`]);
    expect(check('queries/x/utils.ts', '')).to.have.length(1);

    const decider = 'export const xDecider: Decider<XState, XCommand, XEvent> = {\n  events: xEvents,\n};\n';
    expect(check('commands/x/decide.ts', decider)).to.deep.equal([]);
    expect(check('commands/x/operations.ts', `import type { Decider } from '../../src/decider.ts';\n${decider}`)).to.deep.equal([
      `commands/x/operations.ts:2: ${RULES.decider} (export const xDecider: Decider<XState, XCommand, XEvent> = {)`,
    ]);
    expect(check('commands/x/decide.ts', 'export function xRecordDecider<D>(type: string): Decider<D | null, D, XEvent> {')).to.deep.equal(
      [],
    );
    expect(check('commands/x/intake.ts', 'export function xRecordDecider<D>(type: string): Decider<D | null, D, XEvent> {')).to.have.length(
      1,
    );
    // Using a decider is not declaring one.
    expect(check('commands/x/operations.ts', 'await ctx.commands.run(stream, xDecider, command);')).to.deep.equal([]);

    const reactor = 'export function xReactor(deps: ReactorDeps): Reactor {\n  return jobReactor(deps.jobs, xEvents, spec);\n}\n';
    expect(check('commands/x/reactors.ts', reactor)).to.deep.equal([]);
    expect(check('commands/x/delivery.ts', reactor)).to.have.length(2);
    expect(check('projections/x/reactor.ts', reactor).every((v) => v.includes(RULES.reactor))).to.equal(true);
    expect(check('projections/x/projection.ts', 'export const r = defineReactor({ name: "x" });')).to.have.length(1);
    // ReactorDeps is not a reactor, and neither is a comment naming one.
    expect(
      check('commands/x/jobs.ts', 'export function xJobs(deps: ReactorDeps) {}\n// made by jobReactor(...)\n/* : Reactor; */'),
    ).to.deep.equal([]);

    const operation = "export const x = defineOperation({ route: { method: 'get', path: '/v1/x' } });";
    expect(check('commands/x/operations.ts', operation)).to.deep.equal([]);
    expect(check('queries/x/operations.ts', operation)).to.deep.equal([]);
    expect(check('commands/x/handlers.ts', `import { xDecider } from './decide.ts';\n${operation}`)).to.deep.equal([
      `commands/x/handlers.ts:2: ${RULES.operation} (${operation})`,
    ]);
    const job = 'export function xJobs(deps: JobDeps): Record<string, JobProcessor> {\nfunction sendX(deps: JobDeps): JobProcessor {';
    expect(check('commands/x/jobs.ts', job)).to.deep.equal([]);
    expect(check('commands/x/operations.ts', job)).to.have.length(2);
    expect(check('commands/x/jobs.ts', 'import type { JobProcessor } from "../../src/ports/jobs.ts";')).to.deep.equal([]);
    const intake = "export const xKinds: IntakeKind[] = [defineIntakeKind('x', xRecord, importX)];";
    expect(check('commands/x/intake.ts', intake)).to.deep.equal([]);
    expect(check('commands/x/handlers.ts', `import { xDecider } from './decide.ts';\n${intake}`)).to.deep.equal([
      `commands/x/handlers.ts:2: ${RULES.intake} (${intake})`,
    ]);
    expect(check('commands/x/handlers.ts', "import { xDecider } from './decide.ts';\nexport async function placeX() {}")).to.deep.equal([]);
    expect(check('commands/x/handlers.ts', "import { yDecider } from '../y/decide.ts';")).to.deep.equal([
      `commands/x/handlers.ts: ${RULES.handlers}`,
    ]);
    expect(check('queries/x/handlers.ts', "import { xDecider } from './decide.ts';")).to.deep.equal([
      `queries/x/handlers.ts: ${RULES.handlers}`,
    ]);

    const worker = 'export class XWorker implements FeatureWorker {\n}\nexport function xWorkers(deps: WorkerDeps): FeatureWorker[] {}\n';
    expect(check('commands/x/delivery-worker.ts', worker)).to.deep.equal([]);
    expect(check('commands/x/dispatcher.ts', worker)).to.have.length(2);
    expect(check('projections/x/delivery-worker.ts', worker)).to.have.length(2);
    // WorkerDeps is not a worker.
    expect(check('commands/x/jobs.ts', 'export function xJobs(deps: WorkerDeps) {}')).to.deep.equal([]);

    const imports =
      "import { xEvents } from '../../commands/x/events.ts';\n" +
      "import { X_JOB, xJob } from '../../commands/x/jobs.ts';\n" +
      "import type { XFields } from '../../commands/x/rules.ts';\n" +
      "export * from '../../commands/x/decide.ts';\n";
    expect(check('projections/x/projection.ts', imports)).to.deep.equal([
      `projections/x/projection.ts: ${RULES.projectionImports} (imports commands/x/jobs.ts)`,
      `projections/x/projection.ts: ${RULES.projectionImports} (imports commands/x/rules.ts)`,
      `projections/x/projection.ts: ${RULES.projectionImports} (imports commands/x/decide.ts)`,
    ]);
    expect(check('queries/x/dto.ts', 'export async function xMapper(ctx: TenantContext) {}')).to.have.length(1);
    expect(check('commands/x/dto.ts', 'const profile = await profiles(db).findById(id);')).to.have.length(1);
    expect(check('commands/x/find.ts', 'const profile = await profiles(db).findById(id);')).to.deep.equal([]);
    expect(check('queries/x/dto.ts', 'export const toXDto = (doc: XDoc) => ({ Id: doc.Id });')).to.deep.equal([]);
    expect(check('queries/x/events.ts', '')).to.deep.equal([`queries/x/events.ts: ${RULES.eventsHome}`]);
    // Queries and commands may import what commands offer (.dependency-cruiser.cjs says which files).
    expect(check('queries/x/operations.ts', imports)).to.deep.equal([]);
  });
});
